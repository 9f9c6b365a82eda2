import type { Signature } from "@solana/kit";
import { type Ledger, LedgerError, type SendOptions, isLedgerError } from "../ports/ledger.ts";
import { sleep } from "./sleep.ts";

export type SubmissionOutcome =
  | Readonly<{ kind: "sent" }>
  /** The ledger refused the bytes (preflight failure, bad blockhash): it did not land. */
  | Readonly<{ kind: "rejected"; error: string }>
  /** Every attempt hit a transport failure: it may or may not have landed. */
  | Readonly<{ kind: "uncertain"; error: string }>;

const SKIP_PREFLIGHT: SendOptions = Object.freeze({ skipPreflight: true });

/** The ledger says "this signature already landed" (a resend of identical bytes): success, not failure. */
function alreadyLanded(error: LedgerError): boolean {
  // SECURITY: by the structured code only, never by text. The message carries program logs, which
  // a payer writes (a Memo's text is logged): an unfunded payment with the memo "already processed"
  // was taken for sent, hung /settle for the whole confirmation wait and was resent by recovery
  // until its blockhash expired.
  return error.transactionError?.name === "AlreadyProcessed";
}

/**
 * Sends the fully signed bytes. Resending identical bytes is safe (the ledger deduplicates by
 * signature), so transport failures are retried a few times with backoff.
 *
 * The send skips the ledger's preflight: settlement simulated these bytes (less our signature)
 * just before signing them, and a second simulation per settlement would double the ledger's work.
 */
export async function submitTransaction(
  ledger: Ledger,
  wire: Uint8Array,
  expected: Signature,
  attempts = 3,
  backoffMs = 200,
  send: SendOptions = SKIP_PREFLIGHT,
): Promise<SubmissionOutcome> {
  let lastError = "";
  let uncertain = false;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const signature = await ledger.sendTransaction(wire, send);
      if (signature !== expected) return { kind: "rejected", error: `ledger returned signature ${signature}, expected ${expected}` };
      return { kind: "sent" };
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      if (alreadyLanded(error)) return { kind: "sent" };
      // SECURITY: after a lost answer the first send may still land; a later refusal (a lagging
      // node saying "blockhash not found", say) then proves nothing, and calling it final would
      // let a rebuilt retry pay twice. Confirmation and recovery decide instead.
      if (error.kind === "rejected") return uncertain ? { kind: "uncertain", error: error.message } : { kind: "rejected", error: error.message };
      uncertain = true;
      lastError = error.message;
      if (attempt < attempts) await sleep(backoffMs * attempt);
    }
  }
  return { kind: "uncertain", error: lastError };
}
