import { describe, expect, test } from "bun:test";
import type { OpenedStore } from "../../src/infrastructure/store/index.ts";
import postgres from "postgres";
import {
  createPostgresExecutor,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  openStore,
  StoreUnavailableError,
} from "../../src/infrastructure/store/index.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { ADMIN_URL, createTestDatabase, postgresGate, type TestDatabase, useTestDatabase } from "../support/postgres.ts";
import { describeSettlementStoreContract } from "./settlement-store-contract.ts";
import { unusedPort } from "../support/ports.ts";

// Real PostgreSQL server; each run creates settle_test_<random> databases and drops them.
const gate = await postgresGate("tests/store");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

if (gate.run) {
  const database = useTestDatabase();

  describeSettlementStoreContract("PostgreSQL (real server, two client instances)", {
    open: () => openStore({ databaseUrl: database().url, maxConnections: 8 }),
    replicas: true,
  });

  describe("PostgreSQL specifics (real server)", () => {
    test("two concurrent openStore calls on one fresh database both succeed and migrate once", async () => {
      const fresh = await createTestDatabase();
      const opened: OpenedStore[] = [];
      try {
        const results = await Promise.allSettled([
          openStore({ databaseUrl: fresh.url }),
          openStore({ databaseUrl: fresh.url }),
          openStore({ databaseUrl: fresh.url }),
        ]);
        for (const r of results) if (r.status === "fulfilled") opened.push(r.value);
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
        const [a, b] = opened;
        if (a === undefined || b === undefined) throw new Error("stores did not open");
        const rows = await a.executor.query("SELECT version FROM schema_migrations ORDER BY version");
        expect(rows.map((row) => row["version"])).toEqual(MIGRATIONS.map((m) => m.version));
        expect(await b.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
        const d = draft();
        expect((await a.settlements.claim(d)).outcome).toBe("claimed");
        expect((await b.settlements.claim(d)).outcome).toBe("exists");
      } finally {
        for (const store of opened) await store.close();
        await fresh.drop();
      }
    });

    test("backends killed again and again under load: no statement waits out connect_timeout (the client's poisoned-connection defect)", async () => {
      const executor = createPostgresExecutor({ databaseUrl: database().url, maxConnections: 10, connectTimeoutSeconds: 10 });
      const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      let running = true;
      let slowest = 0;
      let failures = 0;
      const worker = async () => {
        while (running) {
          const started = performance.now();
          await executor.query("SELECT $1::int AS x, pg_sleep(0.002)", [1]).catch(() => (failures += 1));
          slowest = Math.max(slowest, performance.now() - started);
        }
      };
      try {
        const workers = Array.from({ length: 20 }, worker);
        for (let round = 0; round < 10; round += 1) {
          await new Promise((resolve) => setTimeout(resolve, 150));
          await admin.unsafe("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [database().name]);
        }
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        running = false;
        await Promise.all(workers);
        expect(failures).toBeGreaterThan(0);
        // Before the fresh-pool remedy: 10-20 s (connect_timeout, once or twice). Now about the 1 s a replaced pool gets.
        expect(slowest).toBeLessThan(3_000);
        expect((await executor.query("SELECT 1 AS one"))[0]?.["one"]).toBe(1);
      } finally {
        running = false;
        await executor.close();
        await admin.end({ timeout: 1 });
      }
    }, 30_000);

    test("the pool's bigint and timestamp handling matches PGlite (kind and types)", async () => {
      const opened = await openStore({ databaseUrl: database().url });
      try {
        expect(opened.kind).toBe("postgres");
        const d = draft({ amount: 12_345_678_901_234_567_890n });
        const { record } = await opened.settlements.claim(d);
        expect(record.amount).toBe(12_345_678_901_234_567_890n);
        expect(record.createdAt).toBeInstanceOf(Date);
      } finally {
        await opened.close();
      }
    });
  });
}

describe("PostgreSQL connection failures (closed local port, no server)", () => {
  test("an unreachable server throws StoreUnavailableError without the password", async () => {
    const port = await unusedPort();
    const url = `postgres://settler:s3cret-pw@127.0.0.1:${port}/settlements`;
    const failure = await openStore({ databaseUrl: url }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    const text = `${String(failure)} ${JSON.stringify(failure)}`;
    expect(text).not.toContain("s3cret-pw");
    expect(text).toContain(`127.0.0.1:${port}/settlements`);
  });

  test("a URL that is not postgres:// is refused before connecting", async () => {
    await expect(openStore({ databaseUrl: "mysql://u:p@localhost/db" })).rejects.toThrow(/postgres:\/\//);
  });
});
