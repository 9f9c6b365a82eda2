/**
 * Shared window counters for every limit that must hold across replicas (fee budgets, the
 * registration and sign-in rate limits): Redis when REDIS_URL is set, else the service's
 * database. Each use gets its own namespace, because window numbers of different window lengths
 * are not comparable. Redis is one connection for all namespaces, with bounded calls
 * (REDIS_CONNECT_TIMEOUT_MS, REDIS_COMMAND_TIMEOUT_MS) and a readiness probe.
 */
import type { Logger } from "../application/ports/logger.ts";
import type { Metrics } from "../application/ports/metrics.ts";
import type { WindowCounters } from "../application/ports/window-counters.ts";
import { type RedisCounterStore, createRedisCounterStore } from "../infrastructure/counters/redis-window-counters.ts";
import { watchCounterStore } from "../infrastructure/metrics/instrumented-counters.ts";
import type { SqlQueryable } from "../infrastructure/store/sql-executor.ts";
import { createSqlWindowCounters } from "../infrastructure/store/sql-window-counters.ts";

export type WindowCounterFactory = Readonly<{
  counters(namespace: string, windowSeconds: number): WindowCounters;
  /**
   * One bounded round trip to Redis (throws COUNTERS_UNAVAILABLE); null when the counters are in
   * the database, whose health is the store check's.
   */
  ping: (() => Promise<void>) | null;
  close(): Promise<void>;
}>;

export type CounterStoreSettings = Readonly<{
  REDIS_URL?: string | undefined;
  REDIS_CONNECT_TIMEOUT_MS: number;
  REDIS_COMMAND_TIMEOUT_MS: number;
}>;

export function windowCounterFactory(
  settings: CounterStoreSettings,
  database: SqlQueryable,
  observe: Readonly<{ metrics: Metrics; logger: Logger }>,
): WindowCounterFactory {
  const url = settings.REDIS_URL;
  if (!url) {
    const watched = watchCounterStore("database", observe.metrics, observe.logger);
    return Object.freeze({
      counters: (namespace: string) => watched.counters(createSqlWindowCounters(database, namespace)),
      ping: null,
      close: async () => {},
    });
  }
  const watched = watchCounterStore("redis", observe.metrics, observe.logger);
  let redis: RedisCounterStore | null = null;
  // Opened at the first use, so a role that uses no counters holds no connection.
  const store = () =>
    (redis ??= createRedisCounterStore({ url, connectTimeoutMs: settings.REDIS_CONNECT_TIMEOUT_MS, commandTimeoutMs: settings.REDIS_COMMAND_TIMEOUT_MS }));
  return Object.freeze({
    counters: (namespace: string, windowSeconds: number) => watched.counters(store().counters(`x402:${namespace}`, windowSeconds)),
    ping: () => watched.watch("ping", () => store().ping()),
    close: async () => void (await redis?.close()),
  });
}
