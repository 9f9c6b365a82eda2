import postgres from "postgres";
import type { Logger } from "../../application/ports/logger.ts";
import { silentLogger } from "../../application/ports/logger.ts";
import { describeDatabaseUrl } from "../logging/redact.ts";
import type { SqlExecutor, SqlParam, SqlQueryable, SqlRow, SqlSession } from "./sql-executor.ts";
import { sqlStateOf } from "./sql-executor.ts";
import { isConnectionError, isConnectionRefusedByServer, StoreUnavailableError } from "./store-errors.ts";

export type PostgresExecutorOptions = Readonly<{
  databaseUrl: string;
  /** Pool size per process (default 10). Every replica opens its own pool. */
  maxConnections?: number;
  /** Seconds to wait for a TCP connection before failing (default 10). */
  connectTimeoutSeconds?: number;
  logger?: Logger;
}>;

type PostgresClient = postgres.Sql | postgres.TransactionSql | postgres.ReservedSql;

/**
 * A pooled connection to a real PostgreSQL server through the `postgres` client.
 * Safe to share between any number of concurrent callers and between replicas.
 */
export function createPostgresExecutor(options: PostgresExecutorOptions): SqlExecutor {
  assertPostgresUrl(options.databaseUrl);
  const logger = options.logger ?? silentLogger;
  // SECURITY: only the redacted target is ever logged or put in errors, never the URL
  // itself, which carries the database password.
  const target = describeDatabaseUrl(options.databaseUrl);
  const connect = (max = options.maxConnections ?? 10) =>
    postgres(options.databaseUrl, {
      max,
      connect_timeout: options.connectTimeoutSeconds ?? 10,
      idle_timeout: 60,
      // Reconnect within a second of the server coming back. The client's default backoff grows
      // with every failed attempt to 7-20 s, so after a 5 s restart settlements kept failing for
      // about 7 s more.
      backoff: reconnectBackoffSeconds,
      // No type catalogue query on each new connection: arrays go in as literals with a cast
      // (sql-batch.ts) and none come back. The client runs that query without awaiting it, so a
      // connection killed during it raised an unhandled rejection.
      fetch_types: false,
      // Notices such as "relation already exists, skipping" are routine during migration;
      // the client's default prints them to stdout, which would break structured logs.
      onnotice: (notice) => logger.debug("postgres notice", { message: notice.message }),
      connection: { application_name: "x402-facilitator" },
    });
  const client = renewingClient(() => connect(), logger);
  /** Sessions handed out and not released yet: closing the executor ends them too. */
  const sessions = new Set<postgres.Sql>();

  const guarded = <T>(work: () => Promise<T>): Promise<T> => withConnectionErrors(target, work, client.renewAfter);
  const root = queryableOver(() => client.current(), guarded);

  return Object.freeze({
    kind: "postgres" as const,
    query: root.query,
    exec: root.exec,
    ...(root.copyOut ? { copyOut: root.copyOut } : {}),
    transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      return guarded(async () => {
        // A holder rather than begin's own return value: the client's typing unwraps
        // promise arrays in ways that do not round-trip a generic T.
        const holder: { done?: { value: T } } = {};
        await client.current().begin(async (tx) => {
          const inTransaction = queryableOver(() => tx, (work) => work());
          holder.done = { value: await fn(inTransaction) };
        });
        if (holder.done === undefined) throw new Error("transaction committed without running its body");
        return holder.done.value;
      });
    },
    async session(): Promise<SqlSession> {
      // A client of its own with one connection rather than the pool's reserve(): postgres 3.4.9
      // never hands a reserve() a connection it opens when fetch_types is off (the connection
      // takes no turn after its start-up), and releasing would put a connection that may still
      // hold a session lock back in the pool. Ending this client ends the session and its locks.
      const one = connect(1);
      sessions.add(one);
      const queryable = queryableOver(() => one, (work) => withConnectionErrors(target, work, () => {}));
      return Object.freeze({
        ...queryable,
        release: () => {
          sessions.delete(one);
          void one.end({ timeout: 1 }).catch(() => undefined);
        },
      });
    },
    async close() {
      await Promise.all([client.close(), ...[...sessions].map((one) => one.end({ timeout: 1 }).catch(() => undefined))]);
      sessions.clear();
    },
  });
}

/** A fresh client is made at most this often, however many statements fail at once. */
const RENEW_INTERVAL_MS = 250;
/** How long a replaced client may finish its statements before its connections are cut. */
const RETIRE_TIMEOUT_SECONDS = 1;

type RenewingClient = Readonly<{ current(): postgres.Sql; renewAfter(error: unknown): void; close(): Promise<void> }>;

/**
 * The pool, replaced by a fresh one when a connection is lost. postgres 3.4.9 defers small writes
 * behind a setImmediate and, when a socket closes with such a write pending, cancels the timer
 * without forgetting it: that pooled connection can then never send its StartupMessage again, and
 * every attempt on it waits out connect_timeout (10 s) before the next. Killing the backends under
 * load reproduced it (10-20 s stalls); the state is inside the client's closures, so the only
 * remedy from outside is a new client. The old one finishes what it is running and is ended.
 */
function renewingClient(connect: () => postgres.Sql, logger: Logger): RenewingClient {
  let sql = connect();
  let renewedAt = Number.NEGATIVE_INFINITY;
  let deferred: ReturnType<typeof setTimeout> | null = null;
  const retiring = new Set<Promise<void>>();

  function renew(): void {
    renewedAt = Date.now();
    const old = sql;
    sql = connect();
    logger.info("database connection lost; opening a fresh pool");
    // What the old pool still runs gets a second; a statement stuck on a poisoned connection
    // would otherwise wait out connect_timeout.
    const ending = old.end({ timeout: RETIRE_TIMEOUT_SECONDS }).catch(() => undefined);
    retiring.add(ending);
    void ending.finally(() => retiring.delete(ending));
  }

  return Object.freeze({
    current: () => sql,
    renewAfter(error: unknown) {
      if (!isLostConnection(error)) return;
      const wait = renewedAt + RENEW_INTERVAL_MS - Date.now();
      if (wait <= 0) return renew();
      // Lost again just after a renewal (a second kill, say): renew once more when allowed, so a
      // connection poisoned by this loss does not stay in the pool.
      deferred ??= setTimeout(() => {
        deferred = null;
        renew();
      }, wait);
    },
    async close() {
      if (deferred !== null) clearTimeout(deferred);
      await Promise.all([sql.end({ timeout: 5 }), ...retiring]);
    },
  });
}

function queryableOver(
  clientOf: () => PostgresClient,
  guard: <T>(work: () => Promise<T>) => Promise<T>,
): SqlQueryable {
  return Object.freeze({
    // Prepared once per connection: `unsafe` does not prepare by default, and an unprepared query
    // with parameters costs two round trips (Parse/Describe, then Bind/Execute) and a parse and
    // plan on the server every time. Every statement text here is a constant, so the cache of
    // prepared statements per connection stays small.
    query: (text: string, params: readonly SqlParam[] = []) =>
      guard(async (): Promise<readonly SqlRow[]> => [...(await clientOf().unsafe(text, [...params], { prepare: true }))]),
    exec: (script: string) =>
      guard(async () => {
        // The simple protocol is what allows several statements in one round trip.
        await clientOf().unsafe(script).simple();
      }),
    copyOut: (statement: string) => copyOutOf(() => guard(() => clientOf().unsafe(statement).readable())),
  });
}

/**
 * The CopyData pieces of a COPY TO STDOUT. The stream is read in flowing mode into a queue, not
 * with the stream's own backpressure: postgres 3.4.9 pauses the socket when a push is refused and
 * resumes it only from the stream's next read, which never comes once the copy ended, so the
 * connection then answered nothing more (seen: every later statement on it hung).
 */
async function* copyOutOf(open: () => Promise<NodeJS.ReadableStream>): AsyncGenerator<Uint8Array> {
  const stream = await open();
  const pieces: Uint8Array[] = [];
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const woken = () => {
    wake?.();
    wake = null;
  };
  stream.on("data", (piece: Uint8Array) => {
    pieces.push(piece);
    woken();
  });
  stream.on("end", () => {
    ended = true;
    woken();
  });
  stream.on("error", (error: unknown) => {
    failure = error;
    woken();
  });
  stream.on("close", () => {
    if (!ended && failure === null) failure = new Error("the database connection closed during a COPY");
    woken();
  });
  let next = 0;
  for (;;) {
    if (next < pieces.length) {
      const piece = pieces[next] as Uint8Array;
      // Handed over pieces are let go (a snapshot is hundreds of MB at 1,000,000 agents).
      pieces[next++] = EMPTY;
      if (next > 64 && next * 2 > pieces.length) {
        pieces.splice(0, next);
        next = 0;
      }
      yield piece;
      continue;
    }
    if (failure !== null) throw failure;
    if (ended) return;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

const EMPTY = new Uint8Array(0);

/** Seconds before the next connection attempt: 50 ms doubling to at most 1 s, with jitter. */
export function reconnectBackoffSeconds(failedAttempts: number): number {
  return Math.min(0.05 * 2 ** failedAttempts, 1) * (0.5 + Math.random() / 2);
}

async function withConnectionErrors<T>(target: string, work: () => Promise<T>, onConnectionError: (error: unknown) => void): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isConnectionError(error) || isConnectionRefusedByServer(error)) {
      onConnectionError(error);
      throw new StoreUnavailableError(target, error);
    }
    throw error;
  }
}

/**
 * A connection that was open (or opening) and is gone: killed, reset, closed by a server going
 * down, or never answering its startup. Not a server that refuses connections or has too many:
 * a fresh pool would not help there.
 */
function isLostConnection(error: unknown): boolean {
  const code = sqlStateOf(error);
  if (code === null) return false;
  return ["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNRESET", "EPIPE", "57P01", "57P02", "57P03"].includes(code) || code.startsWith("08");
}

/** Rejects values that are not PostgreSQL URLs before any driver sees them. */
function assertPostgresUrl(databaseUrl: string): void {
  let protocol: string;
  try {
    protocol = new URL(databaseUrl).protocol;
  } catch {
    throw new Error("DATABASE_URL is not a valid URL (expected postgres://user:password@host:5432/database)");
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") {
    throw new Error(`DATABASE_URL must use postgres:// or postgresql://, not ${protocol}//`);
  }
}
