import Redis from "ioredis";
import type { WindowCounters } from "../../application/ports/window-counters.ts";

// One script, so every counter of a reservation moves in one atomic step across all replicas.
// Keys expire two windows after they were last written: nothing reads an older window.
const ADD_SCRIPT = `
local totals = {}
for i, key in ipairs(KEYS) do
  totals[i] = redis.call('INCRBY', key, ARGV[1])
  redis.call('EXPIRE', key, ARGV[2])
end
return totals`;

const SUBTRACT_SCRIPT = `
for _, key in ipairs(KEYS) do
  if redis.call('DECRBY', key, ARGV[1]) < 0 then redis.call('SET', key, 0, 'KEEPTTL') end
end
return 0`;

export type RedisWindowCounters = WindowCounters & Readonly<{ ping(): Promise<void>; close(): Promise<void> }>;

/**
 * Window counters in Redis (REDIS_URL), the usual place for rate limits shared by replicas.
 * Lamports fit Redis's signed 64-bit integers: a window's total is bounded by the budgets.
 */
export function createRedisWindowCounters(url: string, windowSeconds: number, prefix = "x402:fee-budget"): RedisWindowCounters {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  // Connection errors surface as rejected commands; the client's own 'error' events are not fatal.
  redis.on("error", () => undefined);
  const keysOf = (window: number, scopes: readonly string[]) => scopes.map((scope) => `${prefix}:${window}:${scope}`);
  return Object.freeze({
    async add(window: number, scopes: readonly string[], amount: bigint): Promise<readonly bigint[]> {
      const keys = keysOf(window, scopes);
      const totals = (await redis.eval(ADD_SCRIPT, keys.length, ...keys, amount.toString(), String(windowSeconds * 2))) as number[];
      return totals.map((total) => BigInt(total));
    },
    async subtract(window: number, scopes: readonly string[], amount: bigint): Promise<void> {
      const keys = keysOf(window, scopes);
      await redis.eval(SUBTRACT_SCRIPT, keys.length, ...keys, amount.toString());
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  });
}
