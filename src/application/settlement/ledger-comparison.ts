import type { SignatureStatus } from "../ports/ledger.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";

/**
 * What the ledger says of a record's transaction, in the terms a record is judged by:
 * - `landed`: without error, at `confirmed` or better;
 * - `failed-on-chain`: it landed with an error (the fee was paid, nothing was transferred);
 * - `not-landed`: the ledger does not know it, or has only `processed` it (a fork may drop it).
 */
export type LedgerFate = "landed" | "failed-on-chain" | "not-landed";

export function ledgerFateOf(status: SignatureStatus | null): LedgerFate {
  if (status === null) return "not-landed";
  if (status.err !== null) return "failed-on-chain";
  return status.confirmationStatus === "processed" ? "not-landed" : "landed";
}

/** How a final record can contradict the ledger. */
export const DISAGREEMENT_KINDS = ["settled-not-landed", "settled-failed-on-chain", "failed-but-landed"] as const;
export type DisagreementKind = (typeof DISAGREEMENT_KINDS)[number];

/**
 * A record compared with the ledger: the two agree, the record is still open (pending, or the
 * legacy submitted: its outcome is the reconciler's to record, so the ledger cannot contradict
 * it yet), or they disagree, and how.
 */
export type LedgerComparison =
  | Readonly<{ verdict: "agree"; fate: LedgerFate }>
  | Readonly<{ verdict: "open"; fate: LedgerFate }>
  | Readonly<{ verdict: "disagree"; fate: LedgerFate; kind: DisagreementKind; detail: string }>;

/**
 * The one comparison of a settlement record with the ledger, shared by the reconciler (a
 * `failed-but-landed` record is corrected to settled, which the corrections metric counts) and by
 * `npm run settlements:audit` (which prints every disagreement). The ledger is the truth:
 * - `settled` agrees only with `landed`: `settled-failed-on-chain` is a record claiming a transfer
 *   that failed; `settled-not-landed` one whose transaction the ledger does not know (or, on an
 *   RPC node without the history, no longer knows: the audit documents this);
 * - `failed` agrees with `failed-on-chain` and `not-landed` (nothing moved); `failed-but-landed`
 *   means the payee was paid while the record says not, the case corrections repair.
 */
export function compareWithLedger(record: Pick<SettlementRecord, "state" | "error">, status: SignatureStatus | null): LedgerComparison {
  const fate = ledgerFateOf(status);
  if (record.state === "pending" || record.state === "submitted") return { verdict: "open", fate };
  if (record.state === "settled") {
    if (fate === "landed") return { verdict: "agree", fate };
    return fate === "failed-on-chain"
      ? { verdict: "disagree", fate, kind: "settled-failed-on-chain", detail: `the record says settled, but the transaction failed on the ledger: ${status?.err}` }
      : { verdict: "disagree", fate, kind: "settled-not-landed", detail: `the record says settled, but the ledger ${status === null ? "does not know the transaction" : "has not confirmed the transaction (processed only)"}` };
  }
  if (fate !== "landed") return { verdict: "agree", fate };
  return {
    verdict: "disagree",
    fate,
    kind: "failed-but-landed",
    detail: `the record says failed (${record.error ?? "no error recorded"}), but the ledger shows the transaction landed without error (${status?.confirmationStatus} at slot ${status?.slot})`,
  };
}
