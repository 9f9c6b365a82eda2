import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { type DedicatedPostgres, dedicatedPostgresAvailability, startDedicatedPostgres } from "./support/dedicated-postgres.ts";
import { runOutage } from "./support/outage-rig.ts";
import { failWhenRequired, gateOn } from "../../fixtures/gate.ts";
import { ADMIN_URL, postgresGate, type TestDatabase, useTestDatabase } from "../support/postgres.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

const SETTLEMENTS = 500;
/** Settlements in flight at once: enough that the fault meets every step (lookup, claim, send, finish). */
const IN_FLIGHT = 100;

(gate.run ? describe : describe.skip)("every backend connection killed, twice, while 500 settlements run 100 at a time (real PostgreSQL, pg_terminate_backend from an admin connection)", () => {
  const database = useTestDatabase();

  test("nothing lost or paid twice, every answer true on the ledger, every record final through the reconciler", async () => {
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    const killAll = async () => {
      const killed = await admin.unsafe("SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [database().name]);
      return Number(killed[0]?.["n"] ?? 0);
    };
    const kills: number[] = [];
    try {
      const figures = await runOutage(database().url, SETTLEMENTS, IN_FLIGHT, {
        afterSends: 60,
        async run() {
          kills.push(await killAll());
          await new Promise((resolve) => setTimeout(resolve, 300));
          kills.push(await killAll());
        },
      });
      console.log(`[store outage: pg_terminate_backend] backends killed ${kills.join(" + ")}; ${JSON.stringify(figures)}`);
      expect(kills[0]).toBeGreaterThan(0);
    } finally {
      await admin.end({ timeout: 1 });
    }
  }, 180_000);
});

const dedicated = dedicatedPostgresAvailability();
failWhenRequired(gateOn("tests/settlement", "the PostgreSQL restart test", dedicated.ok ? null : dedicated.reason), "a dedicated PostgreSQL server must be possible in CI");

(dedicated.ok ? describe : describe.skip)("PostgreSQL stopped for 5 s and started again while 500 settlements run 100 at a time (a dedicated server: initdb into a temp dir, pg_ctl on a free port)", () => {
  let server: DedicatedPostgres;
  beforeAll(async () => {
    if (!dedicated.ok) return;
    server = await startDedicatedPostgres(dedicated.bin);
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
  });

  test("nothing lost or paid twice, every answer true on the ledger, every record final through the reconciler", async () => {
    let downMs = 0;
    const figures = await runOutage(server.url, SETTLEMENTS, IN_FLIGHT, {
      afterSends: 60,
      async run() {
        const stopped = performance.now();
        await server.stop();
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        await server.start();
        downMs = performance.now() - stopped;
      },
    });
    console.log(`[store outage: stop 5 s, start] down ${downMs.toFixed(0)} ms; ${JSON.stringify(figures)}`);
  }, 180_000);
});
