import type { Ledger } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import type { Repeater } from "../ports/clock.ts";
import type { SettlementStore } from "../ports/settlement-store.ts";
import type { FeeBudget } from "./fee-budget.ts";
import { reconcileSettlements } from "./reconcile-settlements.ts";

export type ReconcilerLoopDeps = Readonly<{
  ledger: Ledger;
  store: SettlementStore;
  logger: Logger;
  /** Gives back the fee charges of transactions that never landed. */
  feeBudget?: FeeBudget;
  /** RECONCILE_INTERVAL_SECONDS, in milliseconds. */
  intervalMs: number;
  repeat: Repeater;
}>;

/**
 * Recovery at start-up and then periodically: open records are finished from the ledger. A pass
 * still running when the next is due is not doubled; a failed pass is logged and the loop goes on.
 */
export function startReconcilerLoop(deps: ReconcilerLoopDeps): Readonly<{ stop(): void }> {
  const log = deps.logger.child({ component: "reconciler" });
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      await reconcileSettlements({ ledger: deps.ledger, store: deps.store, logger: log, ...(deps.feeBudget ? { feeBudget: deps.feeBudget } : {}) });
    } catch (error) {
      log.warn("reconciliation pass failed", { error });
    } finally {
      running = false;
    }
  };
  void pass();
  const stop = deps.repeat(deps.intervalMs, () => void pass());
  return Object.freeze({ stop });
}
