// The settlement backlog is visible (issue 20, item 3): open records of this network by state, the
// age of the oldest, and the reconciler's passes by outcome, as GET /metrics exposes them from the
// real service on real PostgreSQL. Another network's records in the same database are not counted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getBase58Decoder } from "@solana/kit";
import { SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { type ObservedService, startObservedService } from "../observability/support/observed-service.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { type LedgerProxy, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { newFeePayerKey } from "../../fixtures/payments.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

/** A record the reconciler can never finish: no such signature, no bytes to resend, no expiry. */
const stuck = (network: string) =>
  draft({ network, signature: getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64))), wireTransaction: null, lastValidBlockHeight: null });

function sampleOf(exposition: string, prefix: string): number | null {
  const line = exposition.split("\n").find((l) => l.startsWith(`${prefix} `));
  return line === undefined ? null : Number(line.split(" ")[1]);
}

(gate.run ? describe : describe.skip)("backlog metrics of the reconciler (real PostgreSQL, real service)", () => {
  let database: TestDatabase;
  let store: OpenedStore;
  let ledger: LocalLedger;
  let proxy: LedgerProxy;
  let service: ObservedService | null = null;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url, maxConnections: 2 });
    ledger = createLocalLedger();
    proxy = startLedgerProxy(ledger);
  }, 30_000);

  afterAll(async () => {
    await service?.dispose();
    await proxy?.stop();
    await store?.close();
    await database?.drop();
  });

  test("open records by state and the oldest one's age; passes counted ok, then error while the ledger is down", async () => {
    const [first, second, legacy] = [stuck(SOLANA_DEVNET), stuck(SOLANA_DEVNET), stuck(SOLANA_DEVNET)];
    const elsewhere = [stuck("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"), stuck("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")];
    for (const d of [first, second, legacy, ...elsewhere]) await store.settlements.claim(d);
    await store.executor.query("UPDATE settlements SET state = 'submitted', created_at = now() - interval '10 minutes' WHERE key = $1", [legacy.key]);
    await store.executor.query("UPDATE settlements SET created_at = now() - interval '2 hours' WHERE key = $1", [elsewhere[0]?.key ?? ""]);

    const key = await newFeePayerKey();
    service = await startObservedService({ ROLE: "facilitator", SOLANA_RPC_URL: proxy.url, DATABASE_URL: database.url, FEE_PAYER_PRIVATE_KEY: key.json, RECONCILE_INTERVAL_SECONDS: "1" });
    const observed = service;
    const passes = async (outcome: string) => sampleOf(await observed.scrape(), `x402_reconciler_passes_total{outcome="${outcome}"}`) ?? 0;
    const deadline = Date.now() + 15_000;
    while ((await passes("ok")) < 1 && Date.now() < deadline) await Bun.sleep(50);

    const exposition = await service.scrape();
    expect(sampleOf(exposition, 'x402_settlements_unresolved{state="pending"}')).toBe(2);
    expect(sampleOf(exposition, 'x402_settlements_unresolved{state="submitted"}')).toBe(1);
    // The legacy record, claimed 10 minutes ago, is the oldest of this network (the 2-hour-old one is another network's).
    const age = sampleOf(exposition, "x402_settlements_oldest_unresolved_age_seconds") ?? 0;
    expect(age).toBeGreaterThanOrEqual(600);
    expect(age).toBeLessThan(700);
    expect(sampleOf(exposition, 'x402_reconciler_passes_total{outcome="error"}')).toBe(0);

    // The ledger goes away: passes fail and are counted; the age keeps growing from the last measure.
    await proxy.goDown();
    const errorsBefore = await passes("error");
    const errorDeadline = Date.now() + 15_000;
    while ((await passes("error")) < errorsBefore + 1 && Date.now() < errorDeadline) await Bun.sleep(50);
    expect(await passes("error")).toBeGreaterThanOrEqual(errorsBefore + 1);
    expect(service.logs().some((l) => l["msg"] === "reconciliation pass failed" && l["component"] === "reconciler")).toBe(true);
    proxy.comeUp();

    // Records settle or leave: the backlog follows.
    for (const d of [first, second, legacy]) await store.executor.query("UPDATE settlements SET state = 'failed', error = 'test' WHERE key = $1", [d.key]);
    const okBefore = await passes("ok");
    const okDeadline = Date.now() + 15_000;
    while ((await passes("ok")) < okBefore + 1 && Date.now() < okDeadline) await Bun.sleep(50);
    const after = await service.scrape();
    expect(sampleOf(after, 'x402_settlements_unresolved{state="pending"}')).toBe(0);
    expect(sampleOf(after, 'x402_settlements_unresolved{state="submitted"}')).toBe(0);
    expect(sampleOf(after, "x402_settlements_oldest_unresolved_age_seconds")).toBe(0);
  }, 60_000);
});
