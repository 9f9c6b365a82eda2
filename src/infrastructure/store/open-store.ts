import { join } from "node:path";
import type { Logger } from "../../application/ports/logger.ts";
import { silentLogger } from "../../application/ports/logger.ts";
import type { SettlementStore } from "../../application/ports/settlement-store.ts";
import { describeDatabaseUrl } from "../logging/redact.ts";
import { applyMigrations, readSchemaState, readSchemaVersion, SchemaBehindError } from "./migrate.ts";
import { DEFAULT_PGLITE_TEMPLATE, checkPgliteTemplate, isEmptyDirectory } from "./pglite-template.ts";
import type { SqlExecutor, SqlExecutorKind } from "./sql-executor.ts";
import { createSqlSettlementStore } from "./sql-settlement-store.ts";

export type StoreOptions = Readonly<{
  /** PostgreSQL URL; when set, it wins over everything else. */
  databaseUrl?: string;
  /** The service's DATA_DIR; PGlite keeps its files in `<dataDir>/pglite`. */
  dataDir?: string;
  /** PGlite in memory (tests); ignored when databaseUrl is set. */
  inMemory?: boolean;
  /** PostgreSQL pool size per process (default 10). */
  maxConnections?: number;
  /**
   * true (default): apply pending migrations. false: only check that none is pending and refuse
   * to open (SchemaBehindError) otherwise; the role then needs no right to change the schema.
   */
  migrate?: boolean;
  /**
   * Where a new PGlite directory is copied from instead of running initdb (pglite-template.ts);
   * default: the template `npm ci` builds under node_modules/.cache; null: always initdb.
   */
  pgliteTemplate?: string | null;
  logger?: Logger;
}>;

export type OpenedStore = Readonly<{
  kind: SqlExecutorKind;
  settlements: SettlementStore;
  /** The migrated database, for stores added later (users, auth nonces) on the same schema. */
  executor: SqlExecutor;
  /** Throws (StoreUnavailableError on PostgreSQL) when the database does not answer. */
  ping(): Promise<void>;
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}>;

/**
 * Opens the configured database, applies pending migrations (under an advisory lock, so
 * replicas may start together) or, with `migrate: false`, checks that none is pending, and
 * returns the stores. Throws if the database cannot be reached, migrated or is behind; nothing
 * is left open in that case.
 */
export async function openStore(options: StoreOptions): Promise<OpenedStore> {
  const logger = (options.logger ?? silentLogger).child({ component: "store" });
  const executor = await openDatabase(options, logger);
  try {
    if (options.migrate === false) await requireCurrentSchema(executor, logger);
    else await migrate(executor, logger);
  } catch (error) {
    await executor.close().catch(() => undefined);
    throw error;
  }
  return Object.freeze({
    kind: executor.kind,
    settlements: createSqlSettlementStore(executor),
    executor,
    async ping(): Promise<void> {
      await executor.query("SELECT 1");
    },
    schemaVersion: () => readSchemaVersion(executor),
    close: () => executor.close(),
  });
}

async function migrate(executor: SqlExecutor, logger: Logger): Promise<void> {
  const report = await applyMigrations(executor);
  if (report.applied.length > 0) logger.info("store migrated", { applied: report.applied, version: report.version });
  if (report.unknown.length > 0) logger.warn("database has migrations from a newer release", { unknown: report.unknown });
}

async function requireCurrentSchema(executor: SqlExecutor, logger: Logger): Promise<void> {
  const state = await readSchemaState(executor);
  if (state.pending.length > 0) throw new SchemaBehindError(state.pending);
  if (state.unknown.length > 0) logger.warn("database has migrations from a newer release", { unknown: state.unknown });
}

/** Where PGlite keeps its files under a DATA_DIR. */
export function pgliteDirectory(dataDir: string): string {
  return join(dataDir, "pglite");
}

/** The configured database without touching its schema (the migration tool's entry point). */
export async function openDatabase(options: StoreOptions, logger: Logger = silentLogger): Promise<SqlExecutor> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== "") {
    // SECURITY: the redacted target only; the URL carries the password.
    logger.info("store opening", { kind: "postgres", target: describeDatabaseUrl(options.databaseUrl) });
    // Each engine's client is loaded only when it is the one configured: a PostgreSQL deployment
    // never parses PGlite, a laptop never parses the postgres client and node:tls.
    const { createPostgresExecutor } = await import("./postgres-executor.ts");
    return createPostgresExecutor({
      databaseUrl: options.databaseUrl,
      logger,
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    });
  }
  if (options.inMemory === true) {
    logger.info("store opening", { kind: "pglite", target: "memory" });
    const { createPgliteExecutor } = await import("./pglite-executor.ts");
    return createPgliteExecutor();
  }
  if (options.dataDir === undefined || options.dataDir === "") {
    throw new Error("store needs databaseUrl, dataDir or inMemory");
  }
  const directory = pgliteDirectory(options.dataDir);
  logger.info("store opening", { kind: "pglite", target: directory });
  const template = isEmptyDirectory(directory) ? usableTemplate(options.pgliteTemplate, logger) : undefined;
  const { createPgliteExecutor } = await import("./pglite-executor.ts");
  return createPgliteExecutor({ directory, logger, ...(template === undefined ? {} : { template }) });
}

/** The template's data directory when it fits this code's migrations; otherwise says why initdb runs. */
function usableTemplate(setting: string | null | undefined, logger: Logger): string | undefined {
  if (setting === null) return undefined;
  const template = setting ?? DEFAULT_PGLITE_TEMPLATE;
  const check = checkPgliteTemplate(template);
  if (!check.usable) {
    logger.info("no usable store template: running initdb, which takes a few seconds (npm run build:pglite-template builds it)", { reason: check.reason });
    return undefined;
  }
  // Still correct, only slower: openStore applies these on top of the copy.
  if (check.missing.length > 0) logger.info("store template predates migrations; they are applied after the copy", { missing: check.missing });
  return check.dataDirectory;
}
