import { type LedgerNetworkCheck, describeNetworkMismatch } from "../ledger-network.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import type { Repeater } from "../ports/clock.ts";
import type { SettlementBacklog, SettlementStore } from "../ports/settlement-store.ts";
import type { FeeBudget } from "./fee-budget.ts";
import { type ReconcileReport, reconcileSettlements } from "./reconcile-settlements.ts";

/** How one pass ended: what it did and the backlog it left, or an error (logged). */
export type ReconcilerPass =
  | Readonly<{ outcome: "ok"; report: ReconcileReport; backlog: SettlementBacklog }>
  | Readonly<{ outcome: "error" }>;

export type ReconcilerLoopDeps = Readonly<{
  ledger: Ledger;
  store: SettlementStore;
  logger: Logger;
  /** NETWORK: the only network whose records this loop reads or writes. */
  network: string;
  /** Whether the ledger is the cluster `network` names; no pass runs until it says `matches`. */
  networkGuard: Readonly<{ verify(): Promise<LedgerNetworkCheck> }>;
  /** RECONCILE_RECHECK_FAILED_MINUTES, in seconds. */
  recheckFailedSeconds: number;
  /** Gives back the fee charges of transactions that never landed. */
  feeBudget?: FeeBudget;
  /** RECONCILE_INTERVAL_SECONDS, in milliseconds. */
  intervalMs: number;
  repeat: Repeater;
  /** Told how each pass ended (the metrics). */
  onPass?: (pass: ReconcilerPass) => void;
}>;

/**
 * Recovery at start-up and then periodically: open records are finished from the ledger, and
 * recently failed ones the ledger shows landed are corrected. A pass still running when the next
 * is due is not doubled; a failed pass is logged and the loop goes on. Nothing is touched until
 * the ledger's genesis hash has shown that it is the cluster NETWORK names: a ledger that cannot
 * be asked leaves the pass to the next interval, one that names another network stops recovery
 * for good (logged as an error at every pass, so it is seen).
 */
export function startReconcilerLoop(deps: ReconcilerLoopDeps): Readonly<{ stop(): void }> {
  const log = deps.logger.child({ component: "reconciler" });
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      deps.onPass?.(await runPass(deps, log));
    } catch (error) {
      log.warn("reconciliation pass failed", { error });
      deps.onPass?.({ outcome: "error" });
    } finally {
      running = false;
    }
  };
  void pass();
  const stop = deps.repeat(deps.intervalMs, () => void pass());
  return Object.freeze({ stop });
}

async function runPass(deps: ReconcilerLoopDeps, log: Logger): Promise<ReconcilerPass> {
  const network = await deps.networkGuard.verify();
  if (network.kind === "mismatch") {
    log.error("reconciliation is off: the ledger is another network", { problem: describeNetworkMismatch(deps.network, network) });
    return { outcome: "error" };
  }
  if (network.kind === "unreachable") {
    log.warn("reconciliation pass skipped: the ledger's network could not be checked", { error: network.error });
    return { outcome: "error" };
  }
  const { ledger, store, network: id, recheckFailedSeconds, feeBudget } = deps;
  const report = await reconcileSettlements({ ledger, store, logger: log, network: id, recheckFailedSeconds, ...(feeBudget ? { feeBudget } : {}) });
  return { outcome: "ok", report, backlog: await store.backlog(id) };
}
