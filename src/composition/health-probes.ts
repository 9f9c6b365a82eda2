import type { HealthCheck, HealthProbe } from "../application/health.ts";
import type { Logger } from "../application/ports/logger.ts";
import { redactText } from "../infrastructure/logging/redact.ts";

/** What /health says of a failing dependency: no host, port, database name or URL (they are in the log). */
export const NEUTRAL_DETAIL: Readonly<Record<"ledger" | "store" | "counters", string>> = {
  counters: "the counter store does not answer",
  ledger: "the ledger does not answer",
  store: "the database does not answer",
};

export function ping(call: () => Promise<void>): () => Promise<HealthCheck> {
  return async () => {
    await call();
    return { status: "ok" };
  };
}

/**
 * SECURITY: /health is on the public ports, and a failing dependency's own words name the
 * database (the store's errors name DATABASE_URL's host, port and database) or the RPC endpoint.
 * The operator gets them in a log line (redacted); the response says only which dependency failed.
 */
export function toOperators(logger: Logger, check: "ledger" | "store" | "counters", work: () => Promise<HealthCheck>, failure: "down" | "degraded" = "down"): HealthProbe {
  return async () => {
    try {
      return await work();
    } catch (error) {
      logger.warn("health check failed", { check, status: failure, error: redactText(error instanceof Error ? error.message : String(error)) });
      return { status: failure, detail: NEUTRAL_DETAIL[check] };
    }
  };
}

