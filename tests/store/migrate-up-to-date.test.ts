/**
 * applyMigrations on a database that already has every migration (every restart) only reads it:
 * no transaction, no advisory lock, no DDL (src/infrastructure/store/migrate.ts). A database with
 * something pending still takes the locked transaction and ends current.
 */
import { describe, expect, test } from "bun:test";
import { applyMigrations, createPgliteExecutor, LATEST_SCHEMA_VERSION, MIGRATIONS, readSchemaVersion, type SqlExecutor } from "../../src/infrastructure/store/index.ts";

type Calls = { statements: string[]; transactions: number };

/** The same executor, recording every statement and transaction it is asked for. */
function recording(executor: SqlExecutor, calls: Calls): SqlExecutor {
  return Object.freeze({
    ...executor,
    query: (text: string, params?: Parameters<SqlExecutor["query"]>[1]) => {
      calls.statements.push(text);
      return executor.query(text, params);
    },
    exec: (script: string) => {
      calls.statements.push(script);
      return executor.exec(script);
    },
    transaction: <T>(fn: Parameters<SqlExecutor["transaction"]>[0]) => {
      calls.transactions += 1;
      return executor.transaction((tx) => fn(tx) as Promise<T>);
    },
  });
}

describe("applyMigrations on real PGlite (in memory)", () => {
  test("an up-to-date database: two reads, no transaction, no lock, no DDL; the report says so", async () => {
    const executor = await createPgliteExecutor();
    try {
      await applyMigrations(executor);
      const calls: Calls = { statements: [], transactions: 0 };
      const report = await applyMigrations(recording(executor, calls));
      expect(report).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION, unknown: [] });
      expect(calls.transactions).toBe(0);
      expect(calls.statements.length).toBeLessThanOrEqual(2);
      expect(calls.statements.join("\n")).not.toMatch(/pg_advisory|CREATE|INSERT/i);
    } finally {
      await executor.close();
    }
  }, 60_000);

  test("a database one migration behind: the locked transaction applies it and the schema ends current", async () => {
    const executor = await createPgliteExecutor();
    try {
      await applyMigrations(executor, MIGRATIONS.slice(0, -1));
      const calls: Calls = { statements: [], transactions: 0 };
      const report = await applyMigrations(recording(executor, calls));
      expect(report.applied).toEqual([LATEST_SCHEMA_VERSION]);
      expect(calls.transactions).toBe(1);
      expect(await readSchemaVersion(executor)).toBe(LATEST_SCHEMA_VERSION);
    } finally {
      await executor.close();
    }
  }, 60_000);

  test("versions a newer release recorded are reported as unknown on the read-only path too", async () => {
    const executor = await createPgliteExecutor();
    try {
      await applyMigrations(executor);
      await executor.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from a newer release')", [LATEST_SCHEMA_VERSION + 1]);
      const calls: Calls = { statements: [], transactions: 0 };
      const report = await applyMigrations(recording(executor, calls));
      expect(report).toEqual({ applied: [], version: LATEST_SCHEMA_VERSION + 1, unknown: [LATEST_SCHEMA_VERSION + 1] });
      expect(calls.transactions).toBe(0);
    } finally {
      await executor.close();
    }
  }, 60_000);
});
