/**
 * The small SQL surface the stores are written against, so one implementation of each
 * store serves both the `postgres` client (production) and embedded PGlite (defaults, tests).
 *
 * Parameters are plain strings, numbers, booleans or null: callers convert `bigint` to a
 * decimal string and cast in SQL (`$1::numeric`), because the two drivers disagree on how
 * they send and parse 64-bit values (PGlite parses int8 into a lossy JS number).
 */
export type SqlParam = string | number | boolean | null;

/** One result row, column name to driver value. Readers validate each column they use. */
export type SqlRow = Readonly<Record<string, unknown>>;

export type SqlQueryable = Readonly<{
  /** Runs one statement with positional parameters ($1, $2, ...) and returns its rows. */
  query(text: string, params?: readonly SqlParam[]): Promise<readonly SqlRow[]>;
  /** Runs a parameterless script that may hold several statements (migrations). */
  exec(script: string): Promise<void>;
  /**
   * PostgreSQL only: the rows of `COPY (...) TO STDOUT (FORMAT binary)`, as they arrive (binary-copy.ts
   * reads them). bytea comes over as its bytes, not as hex text: reading a registry snapshot of
   * 233 MB this way took a tenth of the wall time of a SELECT (the server's hex encoding and the
   * client's text parse). COPY takes no parameters: the caller builds `statement` from checked values.
   */
  copyOut?(statement: string): AsyncIterable<Uint8Array>;
}>;

export type SqlExecutorKind = "postgres" | "pglite";

export type SqlExecutor = SqlQueryable &
  Readonly<{
    kind: SqlExecutorKind;
    /**
     * Runs `fn` inside BEGIN/COMMIT on one connection; ROLLBACK if it throws (the error is
     * rethrown). Use only the `tx` handle inside `fn`: on PGlite, calling the outer executor
     * from inside a transaction waits for the transaction and so never returns.
     */
    transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
    /**
     * A connection (outside the pool) for the caller alone until released: what a session-level
     * advisory lock needs (it lives as long as that connection). PostgreSQL only; PGlite has a
     * single session, owned by this process.
     */
    session?(): Promise<SqlSession>;
    close(): Promise<void>;
  }>;

/** A connection of its own; `release` closes it (ending the session and what it held). */
export type SqlSession = SqlQueryable & Readonly<{ release(): void }>;

/** SQLSTATE 23505: a unique constraint or unique index rejected a row. */
export const UNIQUE_VIOLATION = "23505";

/** The SQLSTATE code of a driver error, when it carries one (both drivers use `code`). */
export function sqlStateOf(error: unknown): string | null {
  if (typeof error !== "object" || error === null || !("code" in error)) return null;
  const code = error.code;
  return typeof code === "string" ? code : null;
}
