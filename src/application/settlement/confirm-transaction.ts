import type { Signature } from "@solana/kit";
import { systemClock } from "../ports/clock.ts";
import { type Ledger, isLedgerError } from "../ports/ledger.ts";
import { sleep } from "./sleep.ts";

export type ConfirmationPolicy = Readonly<{
  /** Pause between status polls. */
  pollIntervalMs: number;
  /** Hard wall-clock bound, in case block height cannot be read at all. */
  maxWaitMs: number;
}>;

// One batched status call serves every settlement in flight, so a short interval costs the RPC
// about ten full polls a second per replica while anything is in flight, and saves each payment up
// to a poll of waiting after it lands. New sends add first looks (batched-confirmation.ts): at most
// one call per 5 ms, and one at a time, so against a remote RPC (20-100 ms a call) 10-50 a second.
export const DEFAULT_CONFIRMATION_POLICY: ConfirmationPolicy = Object.freeze({ pollIntervalMs: 100, maxWaitMs: 90_000 });

export type ConfirmationOutcome =
  | Readonly<{ kind: "confirmed" }>
  /** The transaction landed and failed on-chain (the fee was still charged). */
  | Readonly<{ kind: "failed"; error: string }>
  /** The blockhash expired and the signature is unknown: it can never land. */
  | Readonly<{ kind: "expired" }>
  /** The ledger could not be asked long enough to know; the record stays unresolved. */
  | Readonly<{ kind: "unknown"; reason: string }>;

/**
 * Polls `getSignatureStatuses` (which every RPC supports, unlike websockets) until the
 * transaction reaches `confirmed`, fails, or its blockhash expires. Transient RPC errors are
 * retried inside the same bound; the wait never outlives the blockhash.
 */
export async function confirmTransaction(
  ledger: Ledger,
  signature: Signature,
  lastValidBlockHeight: bigint,
  policy: ConfirmationPolicy = DEFAULT_CONFIRMATION_POLICY,
  now: () => number = systemClock.now,
): Promise<ConfirmationOutcome> {
  const deadline = now() + policy.maxWaitMs;
  let lastProblem = "no answer from the ledger";
  while (now() < deadline) {
    try {
      const [status] = await ledger.getSignatureStatuses([signature]);
      if (status) {
        if (status.err !== null) return { kind: "failed", error: status.err };
        if (status.confirmationStatus !== "processed") return { kind: "confirmed" };
      } else if ((await ledger.getBlockHeight()) > lastValidBlockHeight) {
        // One last look: it may have landed in the final valid block.
        const [late] = await ledger.getSignatureStatuses([signature]);
        if (!late) return { kind: "expired" };
      }
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      lastProblem = error.message;
    }
    await sleep(policy.pollIntervalMs);
  }
  return { kind: "unknown", reason: lastProblem };
}
