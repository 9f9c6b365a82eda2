import type { Metrics } from "../../application/ports/metrics.ts";
import type { SettlementBacklog, SettlementStore } from "../../application/ports/settlement-store.ts";
import type { ReconcilerPass } from "../../application/settlement/reconciler-loop.ts";

export const RECONCILER_PASSES = "x402_reconciler_passes_total";
export const SETTLEMENTS_UNRESOLVED = "x402_settlements_unresolved";
export const OLDEST_UNRESOLVED_AGE = "x402_settlements_oldest_unresolved_age_seconds";
export const SETTLEMENT_CORRECTIONS = "x402_settlement_corrections_total";

const PASSES_HELP = "Reconciler passes, by outcome (error: the store or the ledger failed, or the ledger is not the configured NETWORK)";
const CORRECTIONS_HELP = "Settlement records moved out of a final state because the ledger showed otherwise, by the states they left and reached";

/**
 * The reconciler's passes, counted by outcome, and the backlog each successful pass measured:
 * open records of this network by state, and the age of the oldest, computed at each scrape from
 * when it was claimed (so a reconciler that stops passing shows an age that keeps growing).
 * Every replica measures the one shared database: aggregate with max, not sum. No backlog sample
 * before the first successful pass. Returns the loop's `onPass`.
 */
export function reconcilerMetrics(metrics: Metrics, now: () => number): (pass: ReconcilerPass) => void {
  let backlog: SettlementBacklog | null = null;
  // Both outcomes exist from the start, so a rate over them and the alerts have a series to read.
  for (const outcome of ["ok", "error"]) metrics.increment(RECONCILER_PASSES, PASSES_HELP, { outcome }, 0);
  metrics.gaugeFrom(SETTLEMENTS_UNRESOLVED, "Settlement records of this network still open (possibly sent, not yet final), by state", ["state"], () =>
    backlog === null ? [] : Object.entries(backlog.open).map(([state, value]) => ({ labels: { state }, value })),
  );
  metrics.gaugeFrom(OLDEST_UNRESOLVED_AGE, "Seconds since the oldest open settlement record of this network was claimed; 0 when none is open", [], () => {
    if (backlog === null) return [];
    const oldest = backlog.oldestCreatedAt;
    return [{ labels: {}, value: oldest === null ? 0 : Math.max(0, (now() - oldest.getTime()) / 1000) }];
  });
  return (pass) => {
    metrics.increment(RECONCILER_PASSES, PASSES_HELP, { outcome: pass.outcome });
    if (pass.outcome === "ok") backlog = pass.backlog;
  };
}

/**
 * The store with every correction counted: a `settleLanded` that moved a record out of a final
 * state (today only failed -> settled), whoever asked for it (a settle request or the reconciler).
 */
export function countCorrections(store: SettlementStore, metrics: Metrics): SettlementStore {
  metrics.increment(SETTLEMENT_CORRECTIONS, CORRECTIONS_HELP, { from: "failed", to: "settled" }, 0);
  return Object.freeze({
    ...store,
    async settleLanded(key: string, signature: string, slot?: bigint | null) {
      const left = await store.settleLanded(key, signature, slot);
      if (left === "failed") metrics.increment(SETTLEMENT_CORRECTIONS, CORRECTIONS_HELP, { from: left, to: "settled" });
      return left;
    },
  });
}
