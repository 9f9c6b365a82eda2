import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { startFaultRig } from "./support/fault-rig.ts";
import { type LedgerProxy, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { DEFAULT_AMOUNT, fundedPayment, newFeePayerKey, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";
import { type JsonReply, type TestService, extensionsOf, postJson, startService } from "./support/service-harness.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

const CONCURRENT = 50;

(gate.run ? describe : describe.skip)(
  "50 concurrent settles of one payment across two service instances (real PostgreSQL, one embedded ledger over JSON-RPC behind a counting proxy)",
  () => {
    let database: TestDatabase;
    let ledger: LocalLedger;
    let proxy: LedgerProxy;
    let replicas: TestService[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
      ledger = createLocalLedger();
      proxy = startLedgerProxy(ledger);
      const key = await newFeePayerKey();
      await ledger.airdrop(key.address, 10_000_000_000n);
      const env = { SOLANA_RPC_URL: proxy.url, DATABASE_URL: database.url, FEE_PAYER_PRIVATE_KEY: key.json };
      // Sequential: the second start finds the schema migrated by the first.
      replicas = [await startService(env), await startService(env)];
    }, 30_000);

    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.dispose()));
      await proxy?.stop();
      await database?.drop();
    });

    test("one submission reaches the ledger, the payee is paid once, all 50 answers succeed with the same signature", async () => {
      const [a, b] = replicas;
      if (!a || !b) throw new Error("replicas not started");
      expect(a.feePayers.addresses).toEqual(b.feePayers.addresses);
      const feePayer = a.feePayers.addresses[0];
      if (!feePayer) throw new Error("no fee payer");
      const payment = await fundedPayment(ledger, feePayer);
      const feePayerSol = ledger.getBalance(feePayer);

      const replies: JsonReply[] = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => postJson((i % 2 === 0 ? a : b).facilitatorApp, "/settle", payment.body)),
      );

      const signatures = new Set(replies.map((r) => r.body["transaction"]));
      expect(replies.filter((r) => r.status === 200 && r.body["success"] === true)).toHaveLength(CONCURRENT);
      expect(signatures.size).toBe(1);
      const [signature] = [...signatures];
      // Exactly one answer is the original; every other is a replay of it.
      expect(replies.filter((r) => extensionsOf(r)["replayed"] !== true)).toHaveLength(1);

      // On the ledger: one sendTransaction forwarded, one transfer, one fee.
      expect(proxy.forwarded("sendTransaction")).toBe(1);
      expect(proxy.sentSignatures()).toEqual([String(signature)]);
      expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
      expect(await usdcOf(ledger, payment.actors.payer.address)).toBe(0n);
      expect(feePayerSol - ledger.getBalance(feePayer)).toBe(10_000n);

      // In the shared database: one record, settled, with that signature.
      const rows = await a.store.executor.query("SELECT key, state, signature, attempts FROM settlements");
      expect(rows).toHaveLength(1);
      expect(rows[0]?.["key"]).toBe(settlementKeyOfPayment(payment));
      expect(rows[0]?.["state"]).toBe("settled");
      expect(rows[0]?.["signature"]).toBe(signature);
      expect(Number(rows[0]?.["attempts"])).toBe(1);
    });

    test("each replica replays the settled payment afterwards without touching the ledger", async () => {
      const [a, b] = replicas;
      if (!a || !b) throw new Error("replicas not started");
      const feePayer = a.feePayers.addresses[0];
      if (!feePayer) throw new Error("no fee payer");
      const payment = await fundedPayment(ledger, feePayer);
      const first = await postJson(a.facilitatorApp, "/settle", payment.body);
      expect(first.body["success"]).toBe(true);
      const sends = proxy.forwarded("sendTransaction");

      const again = await postJson(b.facilitatorApp, "/settle", payment.body);

      expect(again.body["transaction"]).toBe(first.body["transaction"]);
      expect(extensionsOf(again)["replayed"]).toBe(true);
      expect(proxy.forwarded("sendTransaction")).toBe(sends);
      expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    });
  },
);

(gate.run ? describe : describe.skip)("in-process duplicates (settlement service, real PostgreSQL store, embedded ledger over JSON-RPC)", () => {
  let database: TestDatabase;
  let store: OpenedStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url });
  }, 30_000);

  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  test("20 concurrent settles of one payment in one process share one execution: one fee-payer signature, one claim, one send", async () => {
    const rig = await startFaultRig({ store });
    try {
      const payment = await fundedPayment(rig.ledger, rig.feePayer);

      const replies = await Promise.all(Array.from({ length: 20 }, () => postJson(rig.app, "/settle", payment.body)));

      expect(replies.every((r) => r.body["success"] === true)).toBe(true);
      expect(new Set(replies.map((r) => r.body["transaction"])).size).toBe(1);
      expect(replies.filter((r) => extensionsOf(r)["replayed"] !== true)).toHaveLength(1);
      // SECURITY: a duplicate must not cost a fee-payer signature (a paid KMS/HSM call each).
      expect(rig.signatures()).toBe(1);
      expect(rig.proxy.forwarded("sendTransaction")).toBe(1);
      expect((await store.settlements.get(settlementKeyOfPayment(payment)))?.attempts).toBe(1);
      expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    } finally {
      await rig.close();
    }
  });
});
