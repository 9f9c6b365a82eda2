import type { Signature } from "@solana/kit";
import { fromBase64 } from "../../domain/codecs/base64.ts";
import { type Ledger, isLedgerError } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import type { FeeCharge, SettlementRecord, SettlementStore } from "../ports/settlement-store.ts";
import type { FeeBudget } from "./fee-budget.ts";

export type ReconcileReport = Readonly<{ examined: number; settled: number; failed: number; resent: number; open: number }>;

/**
 * Finishes records a crash, a lost RPC answer or a store outage left open. An open record is
 * `pending` (or `submitted`, written by earlier releases) and always POSSIBLY SENT: the claim
 * stores our signature and the signed bytes before the send, and nothing records the send
 * itself. The ledger alone says what happened:
 * - it landed: settled, or failed with the on-chain error;
 * - it did not land and its blockhash expired: failed, it can never land now;
 * - it did not land yet: the stored bytes are sent again (same signature, so never a second
 *   transfer; a claim whose send never happened is sent now) and the record stays open for the
 *   next pass.
 * Safe to run from every replica at once: `finish` never overwrites a final state. The finishes
 * and resends of one pass run together, so the store groups the finishes into one statement.
 */
export async function reconcileSettlements(
  deps: Readonly<{ ledger: Ledger; store: SettlementStore; logger: Logger; feeBudget?: FeeBudget }>,
  batchSize = 100,
): Promise<ReconcileReport> {
  const open = await deps.store.listUnresolved(batchSize);
  if (open.length === 0) return { examined: 0, settled: 0, failed: 0, resent: 0, open: 0 };
  // Height first, statuses second: a transaction that lands in its last valid block between the
  // two reads is then seen landed, never taken for expired.
  const height = await deps.ledger.getBlockHeight();
  const statuses = await deps.ledger.getSignatureStatuses(open.map((r) => r.signature as Signature));
  const outcomes = await Promise.all(
    open.map(async (record, index): Promise<keyof Omit<ReconcileReport, "examined" | "open"> | "open"> => {
      const status = statuses[index] ?? null;
      if (status && status.err === null && status.confirmationStatus !== "processed") {
        await deps.store.finish(record.key, record.signature, { state: "settled" });
        return "settled";
      }
      if (status && status.err !== null) {
        await deps.store.finish(record.key, record.signature, { state: "failed", error: `transaction failed on-chain: ${status.err}` });
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
    }),
  );
  const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
  const report = { examined: open.length, settled: count("settled"), failed: count("failed"), resent: count("resent"), open: count("resent") + count("open") };
  if (report.settled + report.failed > 0) deps.logger.info("reconciled settlements", report);
  return report;
}

async function releaseQuietly(deps: Readonly<{ feeBudget?: FeeBudget; logger: Logger }>, charge: FeeCharge): Promise<void> {
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
