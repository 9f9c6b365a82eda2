import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import type { Transaction } from "@electric-sql/pglite";
import type { Logger } from "../../application/ports/logger.ts";
import { silentLogger } from "../../application/ports/logger.ts";
import type { SqlExecutor, SqlParam, SqlQueryable, SqlRow } from "./sql-executor.ts";
import { acquireDirectoryLock } from "./pglite-directory-lock.ts";
import { copyPgliteTemplate, isEmptyDirectory } from "./pglite-template.ts";
import { compilePgliteWasm } from "./pglite-wasm.ts";

export type PgliteExecutorOptions = Readonly<{
  /** Directory holding the database files; omitted means in memory (tests, throwaway runs). */
  directory?: string;
  /**
   * A PGlite data directory (pglite-template.ts) copied into `directory` when that holds no
   * database yet, instead of running initdb. Ignored for an existing database.
   */
  template?: string;
  logger?: Logger;
}>;

/**
 * PGlite's defaults plus a smaller buffer pool. initdb writes shared_buffers = 128MB into
 * postgresql.conf, and in PGlite's WebAssembly heap all of it becomes resident: 128 MB for a
 * development database of a few megabytes (the process idled at ~320 MB, ~200 MB with 16MB).
 * A miss costs a read from the OS page cache: with a 70 MB settlements table, single inserts
 * and random key lookups took the same time at 16MB as at 128MB. Set on the command line, so
 * the data directory itself stays a stock PGlite directory.
 */
export const PGLITE_START_PARAMS: readonly string[] = Object.freeze([...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]);

type PgliteLike = PGlite | Transaction;

/**
 * Embedded PostgreSQL (WebAssembly) for zero-configuration runs.
 *
 * PGlite has exactly one backend connection. It queues every query and every transaction
 * behind its own mutexes, so concurrent callers are serialised in the order they arrive;
 * that also makes each multi-statement path (such as a claim) free of interleaving
 * surprises. It is for ONE process: the data directory is locked so a second process
 * fails at startup instead of corrupting the files.
 */
export async function createPgliteExecutor(options: PgliteExecutorOptions = {}): Promise<SqlExecutor> {
  const directory = options.directory;
  const lock = directory === undefined ? null : acquireDirectoryLock(directory);
  let db: PGlite;
  try {
    const startParams = [...PGLITE_START_PARAMS];
    if (directory === undefined) {
      db = await PGlite.create({ startParams });
    } else {
      const template = options.template !== undefined && isEmptyDirectory(directory) ? options.template : undefined;
      // PGlite compiles 9 MB of WebAssembly before it looks at the directory; started first (by
      // main.ts, before the service's modules load), that overlaps the module loading and the
      // template copy's file creation (pglite-wasm.ts). If it fails, PGlite compiles it itself.
      const compiled = compilePgliteWasm().catch(() => undefined);
      if (template !== undefined) seedFromTemplate(template, directory, options.logger ?? silentLogger);
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      const pgliteWasmModule = await compiled;
      db = await PGlite.create({ dataDir: directory, startParams, ...(pgliteWasmModule === undefined ? {} : { pgliteWasmModule }) });
    }
  } catch (error) {
    lock?.release();
    throw error;
  }
  const root = queryableOver(db);
  let closing: Promise<void> | null = null;

  return Object.freeze({
    kind: "pglite" as const,
    query: root.query,
    exec: root.exec,
    transaction: <T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> =>
      db.transaction((tx) => fn(queryableOver(tx))),
    close(): Promise<void> {
      // Idempotent: shutdown paths may close twice, and PGlite rejects a second close.
      closing ??= db.close().finally(() => lock?.release());
      return closing;
    },
  });
}

/** Under the directory lock: a new database starts as a copy of the template; initdb runs only without one. */
function seedFromTemplate(template: string, directory: string, logger: Logger): void {
  try {
    copyPgliteTemplate(template, directory);
    logger.info("store created from template", { template });
  } catch (error) {
    // The template is an optimisation: without it PGlite runs initdb, as before it existed.
    logger.warn("store template not copied; running initdb", { template, error: error instanceof Error ? error.message : String(error) });
  }
}

function queryableOver(client: PgliteLike): SqlQueryable {
  return Object.freeze({
    query: async (text: string, params: readonly SqlParam[] = []): Promise<readonly SqlRow[]> =>
      (await client.query<SqlRow>(text, [...params])).rows,
    exec: async (script: string): Promise<void> => {
      await client.exec(script);
    },
  });
}
