import type Redis from "ioredis";
import { CodedError } from "../../domain/coded-error.ts";
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

export type RedisCounterStoreOptions = Readonly<{
  url: string;
  /** REDIS_CONNECT_TIMEOUT_MS: how long one TCP connection attempt may take. */
  connectTimeoutMs: number;
  /** REDIS_COMMAND_TIMEOUT_MS: how long one command may wait for its answer, queued time included. */
  commandTimeoutMs: number;
}>;

/** One Redis connection for every namespace of counters (fee budget, rate limits), and its probe. */
export type RedisCounterStore = Readonly<{
  /** Counters under `prefix`, whose keys expire two windows of `windowSeconds` after their last write. */
  counters(prefix: string, windowSeconds: number): WindowCounters;
  /** One PING, bounded like every command; throws COUNTERS_UNAVAILABLE. */
  ping(): Promise<void>;
  close(): Promise<void>;
}>;

/**
 * Window counters in Redis (REDIS_URL), the usual place for limits shared by replicas. Lamports
 * fit Redis's signed 64-bit integers: a window's total is bounded by the budgets.
 *
 * Every call is bounded: a stopped Redis (refused), a Redis that accepts connections and never
 * answers (a black hole), and a dropped connection all end in COUNTERS_UNAVAILABLE within about
 * `commandTimeoutMs`, never a hang and never an uncoded error, so each limit fails closed with a
 * proper answer. The client's reconnecting goes on in the background; commands issued meanwhile
 * wait in its queue for at most the command timeout.
 *
 * An `add` that timed out may still have been applied by Redis: the counter then stays charged for
 * a spend that never happened, which makes the limit stricter for that window, never looser.
 */
export function createRedisCounterStore(options: RedisCounterStoreOptions): RedisCounterStore {
  // The client library is loaded here, not at start-up: without REDIS_URL no process loads it, and
  // with it the load runs beside the rest of the boot (each command waits for it).
  const client = import("ioredis").then(({ default: RedisClient }) => connect(RedisClient, options));
  // A failed load fails every command with COUNTERS_UNAVAILABLE, like a Redis that cannot be reached.
  client.catch(() => undefined);
  const bounded = async <T>(work: (redis: Redis) => Promise<T>): Promise<T> => {
    try {
      return await work(await client);
    } catch (error) {
      throw countersUnavailable(error, options.commandTimeoutMs);
    }
  };
  return Object.freeze({
    counters(prefix: string, windowSeconds: number): WindowCounters {
      const keysOf = (window: number, scopes: readonly string[]) => scopes.map((scope) => `${prefix}:${window}:${scope}`);
      return Object.freeze({
        add: (window: number, scopes: readonly string[], amount: bigint) =>
          bounded(async (redis) => {
            const keys = keysOf(window, scopes);
            const totals = (await redis.eval(ADD_SCRIPT, keys.length, ...keys, amount.toString(), String(windowSeconds * 2))) as number[];
            return totals.map((total) => BigInt(total));
          }),
        subtract: (window: number, scopes: readonly string[], amount: bigint) =>
          bounded(async (redis) => {
            const keys = keysOf(window, scopes);
            await redis.eval(SUBTRACT_SCRIPT, keys.length, ...keys, amount.toString());
          }),
      });
    },
    ping: () => bounded(async (redis) => void (await redis.ping())),
    async close() {
      const redis = await client.catch(() => null);
      if (redis === null) return;
      // QUIT is bounded by the command timeout too; a Redis that does not answer it is cut.
      await redis.quit().catch(() => redis.disconnect());
    },
  });
}

function connect(RedisClient: typeof Redis, options: RedisCounterStoreOptions): Redis {
  const redis = new RedisClient(options.url, {
    connectTimeout: options.connectTimeoutMs,
    commandTimeout: options.commandTimeoutMs,
    // A connection that takes a command and sends nothing back (the black hole: TCP accepted, no
    // reply) is torn down and opened again, instead of waiting on it for ever.
    socketTimeout: options.commandTimeoutMs + options.connectTimeoutMs,
    // Queued commands are failed after one reconnect attempt that did not work (a stopped Redis
    // refuses at once), not after the default twenty.
    maxRetriesPerRequest: 1,
    // Kept on (the default), so the first commands after boot or a reconnect wait for the
    // connection; the command timeout bounds that wait.
    enableOfflineQueue: true,
  });
  // Connection errors surface as rejected commands; the client's own 'error' events are not fatal.
  redis.on("error", () => undefined);
  return redis;
}

/**
 * COUNTERS_UNAVAILABLE with a reason in words. SECURITY: the client's own messages name the host
 * and port (`connect ECONNREFUSED 10.0.3.7:6379`); this text reaches clients, so it names neither.
 * The original error stays as `cause`, for the log.
 */
function countersUnavailable(error: unknown, commandTimeoutMs: number): CodedError<"COUNTERS_UNAVAILABLE"> {
  return new CodedError("COUNTERS_UNAVAILABLE", `the shared counters are unavailable (${reasonOf(error, commandTimeoutMs)}); retry shortly`, { cause: error });
}

function reasonOf(error: unknown, commandTimeoutMs: number): string {
  if (!(error instanceof Error)) return "unknown error";
  if (error.message === "Command timed out") return `no answer within ${commandTimeoutMs} ms`;
  if (error.name === "MaxRetriesPerRequestError") return "no connection";
  if (error.name === "ReplyError") return "the store refused the command";
  const code = (error as { code?: unknown }).code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ETIMEDOUT") return "connection timed out";
  if (/connection is closed|isn't writeable/i.test(error.message)) return "no connection";
  return error.name;
}
