import type { Logger } from "../ports/logger.ts";
import type { SettlementState, SettlementStore } from "../ports/settlement-store.ts";

/**
 * The ledger confirmed this attempt without error: the record is settled, whatever it says. A
 * record already final as `failed` (an outage answered "expired" wrongly, another environment's
 * reconciler failed it) is corrected, with a warning naming both states; the corrections metric
 * is counted by the store's instrumentation. Returns the state the record left, or null when it
 * was already settled or holds another attempt (logged: that attempt's outcome is still open).
 * `log` already names the record's key and signature.
 */
export async function settleLanded(store: SettlementStore, log: Logger, key: string, signature: string, slot: bigint | null = null): Promise<SettlementState | null> {
  const left = await store.settleLanded(key, signature, slot);
  if (left === "failed") {
    log.warn("settlement record corrected: the ledger confirmed a transaction recorded as failed", { from: left, to: "settled" });
    return left;
  }
  if (left !== null) return left;
  const current = await store.get(key);
  if (current !== null && current.signature !== signature) {
    log.error("confirmed on the ledger, but the record now holds another attempt", { recordSignature: current.signature, state: current.state });
  }
  return null;
}
