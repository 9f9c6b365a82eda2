// A landed payment never stays `failed` (issue 20, item 2): the ledger is the truth. A record that
// something failed (an outage read as expiry, another environment's reconciler before records were
// scoped by network) is settled again, by the settle request that sees its transaction confirmed or
// by the reconciler's re-check of recently failed records, with a log line and a metric.
// The real service (buildService) on real PostgreSQL, its embedded ledger reached over JSON-RPC.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { type ObservedService, startObservedService } from "../observability/support/observed-service.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";
import { type LedgerProxy, statusesNotFound, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { fundedPayment, newFeePayerKey, settlementKeyOfPayment } from "../../fixtures/payments.ts";
import { postJson } from "./support/service-harness.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

const WRONG_FAILURE = "blockhash expired before the transaction landed";

function sampleOf(exposition: string, prefix: string): number | null {
  const line = exposition.split("\n").find((l) => l.startsWith(prefix));
  return line === undefined ? null : Number(line.split(" ")[1]);
}

const corrections = async (service: ObservedService) => sampleOf(await service.scrape(), 'x402_settlement_corrections_total{from="failed",to="settled"}');

(gate.run ? describe : describe.skip)("a landed payment recorded as failed is corrected to settled (real PostgreSQL, embedded ledger over JSON-RPC)", () => {
  let database: TestDatabase;
  let store: OpenedStore;
  let ledger: LocalLedger;
  let proxy: LedgerProxy;
  let key: Awaited<ReturnType<typeof newFeePayerKey>>;
  const services: ObservedService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url, maxConnections: 2 });
    ledger = createLocalLedger();
    proxy = startLedgerProxy(ledger);
    key = await newFeePayerKey();
    await ledger.airdrop(key.address, 10_000_000_000n);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.dispose()));
    await proxy?.stop();
    await store?.close();
    await database?.drop();
  });

  // Each test starts with no service of an earlier one still reconciling.
  beforeEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.dispose()));
  });

  async function facilitator(env: Readonly<Record<string, string>>): Promise<ObservedService> {
    const service = await startObservedService({ ROLE: "facilitator", SOLANA_RPC_URL: proxy.url, DATABASE_URL: database.url, FEE_PAYER_PRIVATE_KEY: key.json, ...env });
    services.push(service);
    return service;
  }

  const failRecord = (settlementKey: string, updatedAgo = "0 seconds") =>
    store.executor.query(`UPDATE settlements SET state = 'failed', error = $2, updated_at = now() - $3::interval WHERE key = $1`, [settlementKey, WRONG_FAILURE, updatedAgo]);

  test("the settle request: its transaction is confirmed but the record was failed meanwhile; it is settled, logged and counted", async () => {
    // No reconciler pass during the test: the settle request alone must correct the record.
    const service = await facilitator({ RECONCILE_INTERVAL_SECONDS: "3600" });
    let announceSent: () => void = () => {};
    const sent = new Promise<void>((resolve) => {
      announceSent = resolve;
    });
    let holding = true;
    proxy.setRule(async (call, forward) => {
      if (holding && call.method === "getSignatureStatuses") return statusesNotFound(call);
      const response = await forward();
      if (call.method === "sendTransaction") announceSent();
      return response;
    });
    const payment = await fundedPayment(ledger, key.address);
    const settlementKey = settlementKeyOfPayment(payment);
    const answer = postJson(service.facilitatorApp, "/settle", payment.body);
    await sent;
    expect((await store.settlements.get(settlementKey))?.state).toBe("pending");
    // Another process fails the open record while the transaction has in fact landed.
    await failRecord(settlementKey);
    expect(await corrections(service)).toBe(0);

    holding = false;
    const reply = await answer;
    proxy.setRule(null);
    expect(reply.body["success"]).toBe(true);
    const record = await store.settlements.get(settlementKey);
    expect(record).toMatchObject({ state: "settled", error: null, signature: reply.body["transaction"] });
    const line = service.logs().find((l) => String(l["msg"]).startsWith("settlement record corrected"));
    expect(line).toMatchObject({ level: "warn", component: "settlement", key: settlementKey, signature: record?.signature, from: "failed", to: "settled" });
    expect(await corrections(service)).toBe(1);
  }, 60_000);

  test("the reconciler: recently failed records whose transaction landed are settled; one failed before the window is left alone", async () => {
    const settler = await facilitator({ RECONCILE_INTERVAL_SECONDS: "3600" });
    const recent = await fundedPayment(ledger, key.address);
    const stale = await fundedPayment(ledger, key.address);
    for (const payment of [recent, stale]) expect((await postJson(settler.facilitatorApp, "/settle", payment.body)).body["success"]).toBe(true);
    await failRecord(settlementKeyOfPayment(recent), "5 minutes");
    await failRecord(settlementKeyOfPayment(stale), "2 hours");

    // A replica that starts now: its start-up pass re-checks failed records of the last 30 minutes.
    const reconciler = await facilitator({ RECONCILE_INTERVAL_SECONDS: "1", RECONCILE_RECHECK_FAILED_MINUTES: "30" });
    const deadline = Date.now() + 15_000;
    while ((await store.settlements.get(settlementKeyOfPayment(recent)))?.state !== "settled" && Date.now() < deadline) await Bun.sleep(100);

    expect(await store.settlements.get(settlementKeyOfPayment(recent))).toMatchObject({ state: "settled", error: null });
    expect(await store.settlements.get(settlementKeyOfPayment(stale))).toMatchObject({ state: "failed", error: WRONG_FAILURE });
    expect(await corrections(reconciler)).toBe(1);
    const line = reconciler.logs().find((l) => String(l["msg"]).startsWith("settlement record corrected"));
    expect(line).toMatchObject({ level: "warn", component: "reconciler", key: settlementKeyOfPayment(recent), from: "failed", to: "settled" });
    expect(reconciler.logs().find((l) => l["msg"] === "reconciled settlements")).toMatchObject({ corrected: 1 });
  }, 60_000);

  test("RECONCILE_RECHECK_FAILED_MINUTES=0: failed records are never asked about again", async () => {
    const settler = await facilitator({ RECONCILE_INTERVAL_SECONDS: "3600" });
    const payment = await fundedPayment(ledger, key.address);
    expect((await postJson(settler.facilitatorApp, "/settle", payment.body)).body["success"]).toBe(true);
    await failRecord(settlementKeyOfPayment(payment));
    const statusCalls = proxy.received("getSignatureStatuses");

    const reconciler = await facilitator({ RECONCILE_INTERVAL_SECONDS: "1", RECONCILE_RECHECK_FAILED_MINUTES: "0" });
    const passes = async () => sampleOf(await reconciler.scrape(), 'x402_reconciler_passes_total{outcome="ok"}') ?? 0;
    const deadline = Date.now() + 15_000;
    while ((await passes()) < 2 && Date.now() < deadline) await Bun.sleep(100);

    expect(await passes()).toBeGreaterThanOrEqual(2);
    expect((await store.settlements.get(settlementKeyOfPayment(payment)))?.state).toBe("failed");
    expect(proxy.received("getSignatureStatuses")).toBe(statusCalls);
    expect(await corrections(reconciler)).toBe(0);
  }, 60_000);
});
