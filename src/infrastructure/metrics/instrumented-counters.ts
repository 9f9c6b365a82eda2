import type { Logger } from "../../application/ports/logger.ts";
import type { Metrics } from "../../application/ports/metrics.ts";
import type { WindowCounters } from "../../application/ports/window-counters.ts";

export const COUNTER_STORE_ERRORS = "x402_counter_store_errors_total";

/** Where the shared window counters live: Redis (REDIS_URL) or the service's database. */
export type CounterBackend = "redis" | "database";

/** The failures of one counter store, counted and logged once per outage. */
export type CounterStoreWatch = Readonly<{
  /** Runs one call of the store, counting a failure under `op` (add, subtract, ping) and rethrowing it. */
  watch<T>(op: string, work: () => Promise<T>): Promise<T>;
  counters(counters: WindowCounters): WindowCounters;
}>;

/**
 * Every failed call of the counter store is a sample of x402_counter_store_errors_total{op,
 * backend}. The log gets one warning when calls start failing and one line when they work again,
 * not one per request: during an outage every rate-limited request and every settlement fails here.
 */
export function watchCounterStore(backend: CounterBackend, metrics: Metrics, logger: Logger): CounterStoreWatch {
  const help = "Failed calls to the shared window counters (rate limits, fee budget), by operation and backend";
  // Exposed at 0 from the start, so a rate() over the first failures has a baseline to rise from.
  for (const op of backend === "redis" ? ["add", "subtract", "ping"] : ["add", "subtract"]) metrics.increment(COUNTER_STORE_ERRORS, help, { op, backend }, 0);
  let failing = false;
  async function watch<T>(op: string, work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      if (failing) {
        failing = false;
        logger.info("shared counters answer again", { backend });
      }
      return result;
    } catch (error) {
      metrics.increment(COUNTER_STORE_ERRORS, help, { op, backend });
      if (!failing) {
        failing = true;
        logger.warn("shared counters unavailable: rate-limited routes answer 503 and /settle answers FEE_BUDGET_UNAVAILABLE", { backend, op, error: describe(error) });
      }
      throw error;
    }
  }
  return Object.freeze({
    watch,
    counters: (counters: WindowCounters): WindowCounters =>
      Object.freeze({
        add: (window: number, scopes: readonly string[], amount: bigint) => watch("add", () => counters.add(window, scopes, amount)),
        subtract: (window: number, scopes: readonly string[], amount: bigint) => watch("subtract", () => counters.subtract(window, scopes, amount)),
      }),
  });
}

/** The message and the cause's (the client library's own words, for the operator's log only). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.name}: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
