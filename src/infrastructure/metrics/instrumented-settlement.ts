import type { Metrics } from "../../application/ports/metrics.ts";
import type { SettlementService } from "../../application/settlement/settle-payment.ts";

export const SETTLEMENTS_TOTAL = "x402_settlements_total";
export const SETTLEMENT_DURATION = "x402_settlement_duration_seconds";
export const SETTLEMENTS_IN_FLIGHT = "x402_settlements_in_flight";

/**
 * Settlement answers counted and timed by outcome (`settled`, `replayed`, or the failure's reason
 * code), and the settlements executing in this process as a gauge read at each scrape. A settle
 * that throws (broken infrastructure, answered 500) is counted as `error`.
 */
export function instrumentSettlement(settlement: SettlementService, metrics: Metrics): SettlementService {
  metrics.gaugeFrom(SETTLEMENTS_IN_FLIGHT, "Settlements executing in this process (graceful shutdown waits for them)", [], () => [
    { labels: {}, value: settlement.inFlight() },
  ]);
  const record = (outcome: string, started: number) => {
    metrics.increment(SETTLEMENTS_TOTAL, "Settlement answers, by outcome", { outcome });
    metrics.observe(SETTLEMENT_DURATION, "Settlement latency (verify, co-sign, submit, confirm, record), by outcome", { outcome }, (performance.now() - started) / 1000);
  };
  return Object.freeze({
    ...settlement,
    settle: async (...args: Parameters<SettlementService["settle"]>) => {
      const started = performance.now();
      try {
        const result = await settlement.settle(...args);
        record(result.success ? (result.extensions?.["replayed"] ? "replayed" : "settled") : (result.errorReason ?? "failed"), started);
        return result;
      } catch (error) {
        record("error", started);
        throw error;
      }
    },
  });
}
