import { isCoded } from "../../domain/coded-error.ts";
import { type Clock, systemClock } from "../ports/clock.ts";
import type { PaymentTerms, SettlementRecord, SettlementStore } from "../ports/settlement-store.ts";
import { type SettleResponse, describePaymentId, settleFailure, settleResultOf, settledUnderOtherPaymentId } from "./settle-response.ts";
import { sleep } from "./sleep.ts";

export type PreviousDeps = Readonly<{
  store: SettlementStore;
  network: string;
  /** How long a duplicate waits for the holder of the claim before answering "in progress". */
  duplicateWaitMs?: number;
  /** Time for that wait's deadline; default the system clock. */
  clock?: Clock;
}>;

/**
 * The idempotency step: a record already holding this payment's key or paymentId decides the
 * answer (a replay, a wait for the request or replica settling it, or a refusal), unless it
 * failed: a failed payment moved nothing and may be settled again. Null means "go on".
 */
export async function answerFromPrevious(deps: PreviousDeps, previous: SettlementRecord, candidate: PaymentTerms): Promise<SettleResponse | null> {
  const conflict = paymentIdConflict(previous, candidate);
  if (conflict) return settleFailure(deps.network, "ALREADY_SETTLED", conflict, candidate.payer);
  if (previous.state === "settled") return settleResultOf(previous, true);
  if (previous.state === "failed") return null;
  return awaitExisting(deps, previous, candidate);
}

/** Another request or replica holds the claim: wait for its final state instead of submitting. */
export async function awaitExisting(
  deps: PreviousDeps,
  record: SettlementRecord,
  candidate: Readonly<{ paymentId: string | null; payer: string }>,
): Promise<SettleResponse> {
  if (record.paymentId !== candidate.paymentId) return settledUnderOtherPaymentId(record.network, candidate.payer);
  const clock = deps.clock ?? systemClock;
  const deadline = clock.now() + (deps.duplicateWaitMs ?? 30_000);
  let current: SettlementRecord | null = record;
  while (current && (current.state === "pending" || current.state === "submitted") && clock.now() < deadline) {
    await sleep(50);
    try {
      current = await deps.store.get(record.key);
    } catch (error) {
      // A store outage while waiting is more waiting; the deadline bounds it.
      if (!isCoded(error, "STORE_UNAVAILABLE")) throw error;
    }
  }
  return settleResultOf(current ?? record, true);
}

/**
 * SECURITY: a paymentId names one payment. Reusing it with a different transaction must not
 * return the earlier payment's success (a client could otherwise pass off someone else's
 * settled payment as its own).
 */
function paymentIdConflict(previous: SettlementRecord, candidate: PaymentTerms): string | null {
  // A failed payment moved nothing: its paymentId may be reused, its transaction retried.
  if (previous.state === "failed") return null;
  if (previous.key !== candidate.key) return `${describePaymentId(candidate.paymentId)} was already used for another transaction`;
  if (previous.paymentId !== candidate.paymentId) return "this payment was already settled or is settling under another paymentId";
  if (termsConflict(previous, candidate)) return `${describePaymentId(candidate.paymentId)} was already used for a payment with other terms`;
  // A mode payment's key is its paymentId alone: another payer's payment under it is not this one.
  if (previous.payer !== candidate.payer) return `${describePaymentId(candidate.paymentId)} was already used by another payer`;
  return null;
}

export function termsConflict(record: SettlementRecord, terms: Readonly<{ payTo: string; asset: string; amount: bigint }>): boolean {
  return record.payTo !== terms.payTo || record.asset !== terms.asset || record.amount !== terms.amount;
}

/** The lookup key of a candidate's paymentId (scoped to its payer), if it has one. */
export function payerPaymentIdOf(candidate: Readonly<{ payer: string; paymentId: string | null }>) {
  return candidate.paymentId === null ? null : { payer: candidate.payer, paymentId: candidate.paymentId };
}
