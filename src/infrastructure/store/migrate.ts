import type { Migration } from "./migrations.ts";
import { MIGRATIONS } from "./migrations.ts";
import type { SqlExecutor, SqlQueryable } from "./sql-executor.ts";

/**
 * Arbitrary but fixed 64-bit key for pg_advisory_xact_lock. Every replica that starts
 * takes it before reading schema_migrations, so two replicas booting at once against one
 * empty database apply each migration exactly once instead of racing on CREATE TABLE.
 */
export const MIGRATION_LOCK_KEY = 7_402_391_004_120_611n;

export type MigrationReport = Readonly<{
  applied: readonly number[];
  version: number;
  /** Versions recorded by a newer release (a rollback is running against its schema). */
  unknown: readonly number[];
}>;

/**
 * Brings the database to the latest schema in one transaction: either every pending
 * migration is applied and recorded, or none is. Idempotent.
 *
 * A database that already has every migration (every restart) is only read: two queries instead
 * of a transaction of five statements with the advisory lock and a DDL statement. Safe without the
 * lock, since a recorded migration is never removed; anything pending takes the locked path.
 */
export async function applyMigrations(
  executor: SqlExecutor,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationReport> {
  assertOrdered(migrations);
  const state = await readSchemaState(executor, migrations);
  if (migrations.length > 0 && state.pending.length === 0) return Object.freeze({ applied: Object.freeze([]), version: state.version, unknown: state.unknown });
  return executor.transaction(async (tx) => {
    // A literal, not a parameter: the key is a constant and both drivers then agree on int8.
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()})`);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const done = await appliedVersions(tx);
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    const version = Math.max(0, ...done, ...applied);
    return Object.freeze({
      applied: Object.freeze(applied),
      version,
      unknown: Object.freeze(unknownVersions(done, migrations)),
    });
  });
}

export type SchemaState = Readonly<{
  /** Known migrations this database has not applied, in order. */
  pending: readonly number[];
  /** Versions recorded by a newer release. */
  unknown: readonly number[];
  version: number;
}>;

/**
 * What `applyMigrations` would do, without doing it or taking its lock: read-only, so a process
 * whose role may not change the schema (MIGRATE_ON_BOOT=false) can check it at boot.
 */
export async function readSchemaState(db: SqlQueryable, migrations: readonly Migration[] = MIGRATIONS): Promise<SchemaState> {
  const table = await db.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  const done = table[0]?.["present"] === true ? await appliedVersions(db) : new Set<number>();
  return Object.freeze({
    pending: Object.freeze(migrations.map((m) => m.version).filter((version) => !done.has(version))),
    unknown: Object.freeze(unknownVersions(done, migrations)),
    version: Math.max(0, ...done),
  });
}

/** A database whose schema lacks migrations this release needs, met by a process that does not migrate. */
export class SchemaBehindError extends Error {
  override readonly name = "SchemaBehindError";
  constructor(readonly pending: readonly number[]) {
    super(
      `the database schema is behind this release: migration(s) ${pending.join(", ")} not applied, and MIGRATE_ON_BOOT=false keeps this process from applying them. ` +
        "Run the migration first (`npm run migrate`, or the Job in deploy/migrate) with the schema owner's DATABASE_URL, then start again.",
    );
  }
}

/** The highest applied migration; LATEST_SCHEMA_VERSION once `applyMigrations` ran. */
export async function readSchemaVersion(db: SqlQueryable): Promise<number> {
  const rows = await db.query("SELECT COALESCE(MAX(version), 0)::integer AS version FROM schema_migrations");
  const version = rows[0]?.["version"];
  if (typeof version !== "number") throw new Error("schema_migrations returned no version");
  return version;
}


async function appliedVersions(tx: SqlQueryable): Promise<Set<number>> {
  const rows = await tx.query("SELECT version FROM schema_migrations");
  const versions = new Set<number>();
  for (const row of rows) {
    const version = row["version"];
    if (typeof version !== "number") throw new Error("schema_migrations.version is not an integer");
    versions.add(version);
  }
  return versions;
}

function assertOrdered(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= previous) {
      throw new Error(`migrations must have strictly increasing integer versions (at ${m.version})`);
    }
    previous = m.version;
  }
}

/**
 * Versions applied by a newer release. Not an error: migrations are additive, so a rolled
 * back replica keeps working; the caller logs a warning so the operator knows.
 */
function unknownVersions(done: ReadonlySet<number>, migrations: readonly Migration[]): number[] {
  const known = new Set(migrations.map((m) => m.version));
  return [...done].filter((version) => !known.has(version)).sort((a, b) => a - b);
}
