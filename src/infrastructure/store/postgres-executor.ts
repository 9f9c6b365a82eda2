import postgres from "postgres";
import type { Logger } from "../../application/ports/logger.ts";
import { silentLogger } from "../../application/ports/logger.ts";
import { describeDatabaseUrl } from "../logging/redact.ts";
import type { SqlExecutor, SqlParam, SqlQueryable, SqlRow } from "./sql-executor.ts";
import { isConnectionError, isConnectionRefusedByServer, StoreUnavailableError } from "./store-errors.ts";

export type PostgresExecutorOptions = Readonly<{
  databaseUrl: string;
  /** Pool size per process (default 10). Every replica opens its own pool. */
  maxConnections?: number;
  /** Seconds to wait for a TCP connection before failing (default 10). */
  connectTimeoutSeconds?: number;
  logger?: Logger;
}>;

type PostgresClient = postgres.Sql | postgres.TransactionSql;

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
  const sql = postgres(options.databaseUrl, {
    max: options.maxConnections ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    idle_timeout: 60,
    // Reconnect within a second of the server coming back. The client's default backoff grows
    // with every failed attempt to 7-20 s, so after a 5 s restart settlements kept failing for
    // about 7 s more.
    backoff: reconnectBackoffSeconds,
    // Notices such as "relation already exists, skipping" are routine during migration;
    // the client's default prints them to stdout, which would break structured logs.
    onnotice: (notice) => logger.debug("postgres notice", { message: notice.message }),
    connection: { application_name: "x402-facilitator" },
  });

  const guarded = <T>(work: () => Promise<T>): Promise<T> => withConnectionErrors(target, work);
  const root = queryableOver(sql, guarded);

  return Object.freeze({
    kind: "postgres" as const,
    query: root.query,
    exec: root.exec,
    transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      return guarded(async () => {
        // A holder rather than begin's own return value: the client's typing unwraps
        // promise arrays in ways that do not round-trip a generic T.
        const holder: { done?: { value: T } } = {};
        await sql.begin(async (tx) => {
          holder.done = { value: await fn(queryableOver(tx, (work) => work())) };
        });
        if (holder.done === undefined) throw new Error("transaction committed without running its body");
        return holder.done.value;
      });
    },
    close: () => sql.end({ timeout: 5 }),
  });
}

function queryableOver(
  client: PostgresClient,
  guard: <T>(work: () => Promise<T>) => Promise<T>,
): SqlQueryable {
  return Object.freeze({
    // Prepared once per connection: `unsafe` does not prepare by default, and an unprepared query
    // with parameters costs two round trips (Parse/Describe, then Bind/Execute) and a parse and
    // plan on the server every time. Every statement text here is a constant, so the cache of
    // prepared statements per connection stays small.
    query: (text: string, params: readonly SqlParam[] = []) =>
      guard(async (): Promise<readonly SqlRow[]> => [...(await client.unsafe(text, [...params], { prepare: true }))]),
    exec: (script: string) =>
      guard(async () => {
        // The simple protocol is what allows several statements in one round trip.
        await client.unsafe(script).simple();
      }),
  });
}

/** Seconds before the next connection attempt: 50 ms doubling to at most 1 s, with jitter. */
export function reconnectBackoffSeconds(failedAttempts: number): number {
  return Math.min(0.05 * 2 ** failedAttempts, 1) * (0.5 + Math.random() / 2);
}

async function withConnectionErrors<T>(target: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isConnectionError(error) || isConnectionRefusedByServer(error)) throw new StoreUnavailableError(target, error);
    throw error;
  }
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
