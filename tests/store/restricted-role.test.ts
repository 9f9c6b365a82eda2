/**
 * The production database set-up of docs/deploy.md ("Migrations and database roles") on the real
 * PostgreSQL: a migrator role that owns the database and runs `bun src/tools/migrate.ts` (the
 * migration Job's command), and an application role that gets only what the tool grants it. The
 * service runs with the application role and MIGRATE_ON_BOOT=false: it settles a real payment on
 * the embedded ledger (settlement rows, fee-budget counters) and stores a sign-in challenge, while
 * that role cannot change the schema; facing a schema behind the release, the service refuses to
 * start and says what to run. Migration versions come from MIGRATIONS, never a count written here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateKeyPairSigner } from "@solana/kit";
import postgres from "postgres";
import { createPostgresExecutor, MIGRATIONS, applyMigrations, openStore } from "../../src/infrastructure/store/index.ts";
import { SchemaBehindError } from "../../src/infrastructure/store/migrate.ts";
import { grantServiceRole } from "../../src/infrastructure/store/service-role-grants.ts";
import { fundedPayment } from "../../fixtures/payments.ts";
import { postJson, startService, type TestService } from "../settlement/support/service-harness.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { ADMIN_URL, postgresGate } from "../support/postgres.ts";

const ROOT = resolve(import.meta.dir, "../..");
const gate = await postgresGate("tests/store");
failWhenRequired(gate, "PostgreSQL is reachable (required under CI)");

const suffix = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
const MIGRATOR = `migrator_${suffix}`;
const APP = `app_${suffix}`;
const CURRENT = `roles_current_${suffix}`;
const BEHIND = `roles_behind_${suffix}`;
const EMPTY = `roles_empty_${suffix}`;
const VERSIONS = MIGRATIONS.map((m) => m.version);
const LAST = VERSIONS.at(-1)!;

/** The server at ADMIN_URL, database `db`, as `user` (the test server trusts local connections). */
function urlAs(user: string, db: string): string {
  const url = new URL(ADMIN_URL);
  url.username = user;
  url.password = "";
  url.pathname = `/${db}`;
  return url.toString();
}

async function asAdmin<T>(db: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(urlAs(new URL(ADMIN_URL).username || "postgres", db), { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** `bun src/tools/migrate.ts` as the migration Job runs it. */
function runMigrateTool(env: Record<string, string>): Readonly<{ code: number; output: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "migrate-tool-"));
  try {
    const run = Bun.spawnSync([process.execPath, "src/tools/migrate.ts"], { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "", DATA_DIR: dataDir, ...env } });
    return { code: run.exitCode, output: run.stdout.toString() + run.stderr.toString() };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe.skipIf(!gate.run)("the service with its own restricted database role (real PostgreSQL)", () => {
  beforeAll(async () => {
    await asAdmin("postgres", async (sql) => {
      await sql.unsafe(`CREATE ROLE ${MIGRATOR} LOGIN`);
      await sql.unsafe(`CREATE ROLE ${APP} LOGIN`);
      for (const db of [CURRENT, BEHIND, EMPTY]) await sql.unsafe(`CREATE DATABASE ${db} OWNER ${MIGRATOR}`);
    });
    // As docs/deploy.md has the operator do it once, as a superuser.
    for (const db of [CURRENT, BEHIND]) {
      await asAdmin(db, (sql) => sql.unsafe(`ALTER SCHEMA public OWNER TO ${MIGRATOR}; REVOKE CREATE ON SCHEMA public FROM PUBLIC`));
    }
  }, 30_000);

  afterAll(async () => {
    await asAdmin("postgres", async (sql) => {
      for (const db of [CURRENT, BEHIND, EMPTY]) await sql.unsafe(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      for (const role of [APP, MIGRATOR]) await sql.unsafe(`DROP ROLE IF EXISTS ${role}`);
    });
  }, 30_000);

  test("`bun src/tools/migrate.ts` as the migrator applies every migration and grants the application role; a second run has nothing to do", () => {
    const first = runMigrateTool({ DATABASE_URL: urlAs(MIGRATOR, CURRENT), MIGRATE_GRANT_TO: APP });
    expect({ code: first.code, output: first.output }).toEqual({ code: 0, output: first.output });
    expect(first.output).toContain(`applied ${VERSIONS.join(", ")}; schema version ${LAST}`);
    expect(first.output).toContain(`granted ${APP} SELECT, INSERT, UPDATE, DELETE`);
    const second = runMigrateTool({ DATABASE_URL: urlAs(MIGRATOR, CURRENT), MIGRATE_GRANT_TO: APP });
    expect(second.code).toBe(0);
    expect(second.output).toContain(`schema version ${LAST}, nothing to apply`);
  });

  test("the tool fails (and so does the Job) on a role name that is not a plain identifier, or a role that does not exist", () => {
    const injected = runMigrateTool({ DATABASE_URL: urlAs(MIGRATOR, CURRENT), MIGRATE_GRANT_TO: `${APP}"; DROP TABLE settlements; --` });
    expect(injected.code).toBe(1);
    expect(injected.output).toContain("MIGRATE_GRANT_TO: not a plain PostgreSQL role name");
    const unknown = runMigrateTool({ DATABASE_URL: urlAs(MIGRATOR, CURRENT), MIGRATE_GRANT_TO: `nobody_${suffix}` });
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain("does not exist");
  });

  describe("the service as the application role, MIGRATE_ON_BOOT=false", () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startService({ DATABASE_URL: urlAs(APP, CURRENT), MIGRATE_ON_BOOT: "false", DATABASE_POOL_MAX: "4" });
    }, 60_000);
    afterAll(async () => {
      await service?.dispose();
    });

    test("settles a real payment: the settlement row and the fee-budget counters are written with that role", async () => {
      const ledger = service.embeddedLedger!;
      const feePayer = service.feePayers.addresses[0]!;
      const payment = await fundedPayment(ledger, feePayer);
      const reply = await postJson(service.facilitatorApp, "/settle", payment.body);
      expect({ status: reply.status, success: reply.body["success"], reason: reply.body["errorReason"] }).toEqual({ status: 200, success: true, reason: undefined });
      const rows = await asAdmin(CURRENT, (sql) => sql`SELECT state FROM settlements WHERE signature = ${String(reply.body["transaction"])}`);
      expect(rows.map((r) => r["state"])).toEqual(["settled"]);
      const windows = await asAdmin(CURRENT, (sql) => sql`SELECT count(*)::integer AS n FROM fee_budget_windows`);
      expect(windows[0]?.["n"]).toBeGreaterThan(0);
    });

    test("stores a sign-in challenge, and reports the store healthy", async () => {
      const wallet = await generateKeyPairSigner();
      const challenge = await service.registryApp.handle(
        new Request("http://registry.test/auth/challenge", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address: wallet.address }) }),
      );
      expect(challenge.status).toBe(200);
      const nonces = await asAdmin(CURRENT, (sql) => sql`SELECT count(*)::integer AS n FROM auth_nonces WHERE address = ${wallet.address}`);
      expect(nonces[0]?.["n"]).toBe(1);
      const health = (await (await service.facilitatorApp.handle(new Request("http://facilitator.test/health"))).json()) as { checks: { store: { status: string } } };
      expect(health.checks.store.status).toBe("ok");
    });
  });

  test("the application role cannot change the schema or the migration record", async () => {
    const sql = postgres(urlAs(APP, CURRENT), { max: 1, onnotice: () => {} });
    const refused = async (statement: string) => {
      const error = await sql.unsafe(statement).then(() => null, (e: unknown) => e as { code?: string });
      return { statement, code: error?.code ?? "allowed" };
    };
    try {
      for (const statement of [
        "CREATE TABLE intruder (id integer)",
        "ALTER TABLE settlements ADD COLUMN intruder text",
        "DROP TABLE settlements",
        "TRUNCATE settlements",
        "CREATE INDEX intruder_idx ON settlements (payer)",
        `INSERT INTO schema_migrations (version, name) VALUES (${LAST + 1}, 'intruder')`,
        "DELETE FROM schema_migrations",
      ]) {
        // 42501 insufficient_privilege; 42501 too for "must be owner of table".
        expect(await refused(statement)).toEqual({ statement, code: "42501" });
      }
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  test("facing a schema behind the release, `bun src/main.ts` refuses to start, names the missing migration and what to run; after the tool runs, it opens", async () => {
    // The previous release's schema: every migration but the last, with the grants of that time.
    const migrator = createPostgresExecutor({ databaseUrl: urlAs(MIGRATOR, BEHIND), maxConnections: 1 });
    try {
      await applyMigrations(migrator, MIGRATIONS.slice(0, -1));
      await grantServiceRole(migrator, APP);
    } finally {
      await migrator.close();
    }
    const dataDir = mkdtempSync(join(tmpdir(), "schema-behind-"));
    try {
      const run = Bun.spawnSync([process.execPath, "src/main.ts"], {
        cwd: ROOT,
        env: { PATH: process.env["PATH"] ?? "", DATA_DIR: dataDir, ROLE: "facilitator", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0", DATABASE_URL: urlAs(APP, BEHIND), MIGRATE_ON_BOOT: "false" },
        timeout: 60_000,
      });
      const output = run.stdout.toString() + run.stderr.toString();
      expect({ code: run.exitCode, output }).toEqual({ code: 1, output });
      expect(output).toContain(`migration(s) ${LAST} not applied`);
      expect(output).toContain("npm run migrate");
      expect(output).not.toContain("listening");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }

    expect(runMigrateTool({ DATABASE_URL: urlAs(MIGRATOR, BEHIND), MIGRATE_GRANT_TO: APP }).output).toContain(`applied ${LAST}; schema version ${LAST}`);
    const store = await openStore({ databaseUrl: urlAs(APP, BEHIND), migrate: false, maxConnections: 1 });
    expect(await store.schemaVersion()).toBe(LAST);
    await store.close();
  }, 90_000);

  test("with migrate: false an empty database is refused with every migration named, and nothing is created in it", async () => {
    const error = await openStore({ databaseUrl: urlAs(MIGRATOR, EMPTY), migrate: false, maxConnections: 1 }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaBehindError);
    expect((error as SchemaBehindError).pending).toEqual(VERSIONS);
    const tables = await asAdmin(EMPTY, (sql) => sql`SELECT count(*)::integer AS n FROM pg_tables WHERE schemaname = 'public'`);
    expect(tables[0]?.["n"]).toBe(0);
  });
});
