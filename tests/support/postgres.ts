import { afterAll, beforeAll } from "bun:test";
import postgres from "postgres";
import { type Gate, gateOn } from "../../fixtures/gate.ts";

/**
 * Real PostgreSQL for tests: the server at TEST_POSTGRES_URL (default the local trust-auth
 * server), one uniquely named database per use, dropped afterwards.
 */
export const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type Reachability = Readonly<{ ok: true } | { ok: false; reason: string }>;

export async function probePostgres(): Promise<Reachability> {
  const sql = postgres(ADMIN_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return { ok: true };
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    return { ok: false, reason: `${code} ${error instanceof Error ? error.message : String(error)}`.trim() };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Whether the real PostgreSQL tests run (see gate.ts). */
export async function postgresGate(area: string): Promise<Gate> {
  const reachability = await probePostgres();
  const where = new URL(ADMIN_URL).host;
  return gateOn(area, "PostgreSQL tests", reachability.ok ? null : `PostgreSQL is not reachable at ${where} (${reachability.reason}); start it or set TEST_POSTGRES_URL`);
}

export type TestDatabase = Readonly<{ url: string; name: string; drop(): Promise<void> }>;

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `settle_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 1 });
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return Object.freeze({
    url: url.toString(),
    name,
    async drop(): Promise<void> {
      const dropper = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        // FORCE ends connections a failed test may have left open.
        await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end({ timeout: 1 });
      }
    },
  });
}

/** A fresh database for the enclosing describe block (or file): created before its tests, dropped after. */
export function useTestDatabase(): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 30_000);
  afterAll(async () => {
    await database?.drop();
  });
  return () => {
    if (database === undefined) throw new Error("the test database is used before its beforeAll ran");
    return database;
  };
}
