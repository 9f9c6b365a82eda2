import type { Signature } from "@solana/kit";
import { fromBase64 } from "../../domain/codecs/base64.ts";
import { type Ledger, type SignatureStatus, isLedgerError } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import type { FeeReservation, SettlementRecord, SettlementStore } from "../ports/settlement-store.ts";
import type { FeeBudget } from "./fee-budget.ts";
import { compareWithLedger, ledgerFateOf } from "./ledger-comparison.ts";
import { settleLanded } from "./settle-landed.ts";

export type ReconcileReport = Readonly<{
  /** Open records read. */
  examined: number;
  settled: number;
  failed: number;
  resent: number;
  open: number;
  /** Recently failed records asked about again. */
  rechecked: number;
  /** Records that were `failed` and the ledger showed landed: now `settled`. */
  corrected: number;
}>;

export type ReconcileDeps = Readonly<{
  ledger: Ledger;
  store: SettlementStore;
  logger: Logger;
  /** NETWORK, checked against the ledger's genesis hash: only this network's records are read or written. */
  network: string;
  /** RECONCILE_RECHECK_FAILED_MINUTES in seconds: how far back failed records are asked about again; 0 or absent, never. */
  recheckFailedSeconds?: number;
  /** Gives back the fee charges of transactions that never landed. */
  feeBudget?: FeeBudget;
}>;

type Outcome = "settled" | "failed" | "resent" | "open" | "corrected" | "unchanged";

const NOTHING: ReconcileReport = Object.freeze({ examined: 0, settled: 0, failed: 0, resent: 0, open: 0, rechecked: 0, corrected: 0 });

/**
 * Finishes records a crash, a lost RPC answer or a store outage left open, and corrects records
 * that failed although their transaction landed. Only records of `deps.network` are touched:
 * another environment sharing the database has its own ledger, on which ours would find none of
 * its transactions and call them expired.
 *
 * An open record is `pending` (or `submitted`, written by earlier releases) and always POSSIBLY
 * SENT: the claim stores our signature and the signed bytes before the send, and nothing records
 * the send itself. The ledger alone says what happened:
 * - it landed: settled, or failed with the on-chain error;
 * - it did not land and its blockhash expired: failed, it can never land now;
 * - it did not land yet: the stored bytes are sent again (same signature, so never a second
 *   transfer; a claim whose send never happened is sent now) and the record stays open for the
 *   next pass.
 * A record that failed within the last `recheckFailedSeconds` is asked about again: if its
 * signature landed without error, the ledger is the truth and the record becomes settled. A
 * failed record is never sent again (its payer may have built a new transaction).
 * Safe to run from every replica at once: `finish` never overwrites a final state and
 * `settleLanded` only moves a record towards settled. The writes of one pass run together, so
 * the store groups the finishes into one statement.
 */
export async function reconcileSettlements(deps: ReconcileDeps, batchSize = 100): Promise<ReconcileReport> {
  const [open, failed] = await Promise.all([
    deps.store.listUnresolved(deps.network, batchSize),
    deps.store.listRecentlyFailed(deps.network, deps.recheckFailedSeconds ?? 0, batchSize),
  ]);
  if (open.length === 0 && failed.length === 0) return NOTHING;
  // Height first, statuses second: a transaction that lands in its last valid block between the
  // two reads is then seen landed, never taken for expired.
  const height = open.length > 0 ? await deps.ledger.getBlockHeight() : 0n;
  const statuses = await deps.ledger.getSignatureStatuses([...open, ...failed].map((r) => r.signature as Signature));
  const outcomes = await Promise.all([
    ...open.map((record, index) => finishOpen(deps, record, statuses[index] ?? null, height)),
    ...failed.map((record, index) => recheckFailed(deps, record, statuses[open.length + index] ?? null)),
  ]);
  const count = (outcome: Outcome) => outcomes.filter((o) => o === outcome).length;
  const report: ReconcileReport = {
    examined: open.length,
    settled: count("settled"),
    failed: count("failed"),
    resent: count("resent"),
    open: count("resent") + count("open"),
    rechecked: failed.length,
    corrected: count("corrected"),
  };
  if (report.settled + report.failed + report.corrected > 0) deps.logger.info("reconciled settlements", report);
  return report;
}

async function finishOpen(deps: ReconcileDeps, record: SettlementRecord, status: SignatureStatus | null, height: bigint): Promise<Outcome> {
  const fate = ledgerFateOf(status);
  if (fate === "landed") {
    if (await deps.store.finish(record.key, record.signature, { state: "settled" })) return "settled";
    // Final since it was read (failed by a request that gave up, say): the ledger still decides.
    return (await settleLanded(deps.store, recordLog(deps, record), record.key, record.signature)) === "failed" ? "corrected" : "settled";
  }
  if (fate === "failed-on-chain") {
    await deps.store.finish(record.key, record.signature, { state: "failed", error: `transaction failed on-chain: ${status?.err}` });
    return "failed";
  }
  if (!status && isExpired(record, height)) {
    const finished = await deps.store.finish(record.key, record.signature, { state: "failed", error: "blockhash expired before the transaction landed" });
    // It never landed, so its fee was never paid: the charge goes back (once: only the
    // replica whose finish moved the record gives it back).
    if (finished && record.feeCharge && deps.feeBudget) await releaseQuietly(deps, record.feeCharge);
    return "failed";
  }
  return !status && (await resend(deps, record)) ? "resent" : "open";
}

/** The comparison `settlements:audit` prints decides the correction (ledger-comparison.ts). */
async function recheckFailed(deps: ReconcileDeps, record: SettlementRecord, status: SignatureStatus | null): Promise<Outcome> {
  const comparison = compareWithLedger(record, status);
  if (comparison.verdict !== "disagree" || comparison.kind !== "failed-but-landed") return "unchanged";
  return (await settleLanded(deps.store, recordLog(deps, record), record.key, record.signature)) === "failed" ? "corrected" : "unchanged";
}

function recordLog(deps: ReconcileDeps, record: SettlementRecord): Logger {
  return deps.logger.child({ key: record.key, signature: record.signature });
}

async function releaseQuietly(deps: Readonly<{ feeBudget?: FeeBudget; logger: Logger }>, charge: FeeReservation): Promise<void> {
  try {
    await deps.feeBudget?.release(charge);
  } catch (error) {
    deps.logger.warn("fee budget release failed; the budget stays charged", { error });
  }
}

function isExpired(record: SettlementRecord, height: bigint): boolean {
  return record.lastValidBlockHeight !== null && height > record.lastValidBlockHeight;
}

async function resend(deps: Readonly<{ ledger: Ledger; logger: Logger }>, record: SettlementRecord): Promise<boolean> {
  if (!record.wireTransaction) return false;
  try {
    await deps.ledger.sendTransaction(fromBase64(record.wireTransaction));
    return true;
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    deps.logger.debug("reconcile resend refused", { key: record.key, error: error.message });
    return false;
  }
}
