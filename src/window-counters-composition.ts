/**
 * Shared window counters for every limit that must hold across replicas (fee budgets, the
 * registration rate limit): Redis when REDIS_URL is set, else the service's database. Each use
 * gets its own namespace, because window numbers of different window lengths are not comparable.
 */
import type { WindowCounters } from "./application/ports/window-counters.ts";
import { createRedisWindowCounters } from "./infrastructure/counters/redis-window-counters.ts";
import type { SqlQueryable } from "./infrastructure/store/sql-executor.ts";
import { createSqlWindowCounters } from "./infrastructure/store/sql-window-counters.ts";

export type WindowCounterFactory = Readonly<{
  counters(namespace: string, windowSeconds: number): WindowCounters;
  close(): Promise<void>;
}>;

export function windowCounterFactory(redisUrl: string | undefined, database: SqlQueryable): WindowCounterFactory {
  const opened: { close(): Promise<void> }[] = [];
  return Object.freeze({
    counters(namespace: string, windowSeconds: number): WindowCounters {
      if (!redisUrl) return createSqlWindowCounters(database, namespace);
      const redis = createRedisWindowCounters(redisUrl, windowSeconds, `x402:${namespace}`);
      opened.push(redis);
      return redis;
    },
    close: async () => void (await Promise.allSettled(opened.map((counters) => counters.close()))),
  });
}
