import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";

/**
 * A settlement as clients see it (GET /settlements, and `data` of every webhook event):
 * - `received`: claimed and co-signed; the send is about to happen or under way (not yet recorded);
 * - `submitted`: the ledger acknowledged the send (records whose acknowledgement was recorded
 *   before they became final: those written by earlier releases);
 * - `pending`: a settle answered `settlement_pending` (confirmation outlasted SETTLE_CONFIRM_DEADLINE_MS);
 * - `confirmed`: the ledger confirmed the transaction without error;
 * - `failed`: it cannot land, or landed with an error (`reason` says which).
 */
export type SettlementViewState = "received" | "submitted" | "pending" | "confirmed" | "failed";

export type SettlementView = Readonly<{
  transaction: string;
  state: SettlementViewState;
  /** Why it failed; null unless `failed`. */
  reason: string | null;
  network: string;
  payer: string;
  payTo: string;
  asset: string;
  /** Base units, as a decimal string (u64 does not fit a JSON number). */
  amount: string;
  mode: SettlementMode;
  paymentId: string | null;
  /** The slot the transaction landed in, when the ledger reported it. */
  slot: string | null;
  /** How many attempts the record took (a failed payment may be settled again). */
  attempts: number;
  /** Whether the settled payment was presented again (an idempotent replay or a refused duplicate). */
  replayed: boolean;
  /** The ledger found a transaction recorded as failed landed after all (the reconciler's correction). */
  corrected: boolean;
  /** ISO-8601 times of each transition this attempt went through; null when it did not (or was not recorded). */
  timestamps: Readonly<{
    received: string;
    submitted: string | null;
    pending: string | null;
    confirmed: string | null;
    failed: string | null;
    corrected: string | null;
    replayed: string | null;
    updated: string;
  }>;
}>;

/** The one mapping from a stored record to what clients read. */
export function settlementView(record: SettlementRecord): SettlementView {
  const finished = record.finishedAt ?? (record.state === "settled" || record.state === "failed" ? record.updatedAt : null);
  const corrected = record.state === "settled" && record.correctedAt !== null;
  return Object.freeze({
    transaction: record.signature,
    state: viewStateOf(record),
    reason: record.state === "failed" ? (record.error ?? "settlement failed") : null,
    network: record.network,
    payer: record.payer,
    payTo: record.payTo,
    asset: record.asset,
    amount: record.amount.toString(),
    mode: record.mode,
    paymentId: record.paymentId,
    slot: record.slot === null ? null : record.slot.toString(),
    attempts: record.attempts,
    replayed: record.replays > 0,
    corrected,
    timestamps: Object.freeze({
      received: record.createdAt.toISOString(),
      submitted: iso(record.submittedAt),
      pending: iso(record.pendingAt),
      // A corrected record failed first (finishedAt) and was confirmed at its correction.
      confirmed: record.state === "settled" ? iso(corrected ? record.correctedAt : finished) : null,
      failed: record.state === "failed" || corrected ? iso(finished) : null,
      corrected: corrected ? iso(record.correctedAt) : null,
      replayed: iso(record.replayedAt),
      updated: record.updatedAt.toISOString(),
    }),
  });
}

function viewStateOf(record: SettlementRecord): SettlementViewState {
  switch (record.state) {
    case "settled":
      return "confirmed";
    case "failed":
      return "failed";
    case "pending":
    case "submitted":
      if (record.pendingAt !== null) return "pending";
      return record.state === "submitted" || record.submittedAt !== null ? "submitted" : "received";
  }
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
