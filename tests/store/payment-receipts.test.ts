/**
 * Receipts of receipt-mode settlements (migration 13): written by the claim statements themselves
 * (the batched insert, the single-claim insert, the retake of a failed record) and read back by
 * PaymentStats.settledReceipts, which answers only confirmed settlements of its own network. On
 * embedded PGlite and a real PostgreSQL server (skipped with a printed reason when unreachable,
 * required under CI=true).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlPaymentStats } from "../../src/infrastructure/store/sql-payment-stats.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";

/** What the drafts settle: the fixture's asset and amount, as the store reads them back. */
const PAID = [{ asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", amount: "1000000" }];
const settledAs = (receipts: readonly string[]) => new Map(receipts.map((r) => [r, PAID]));

const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const OTHER_NETWORK = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

function receipt(label: string): string {
  return `Receipt${label}`.padEnd(43, "1");
}

function describeStore(name: string, open: () => Promise<OpenedStore>): void {
  describe(`payment receipts: ${name}`, () => {
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
    }, 30_000);
    afterAll(async () => {
      await opened?.close();
    });

    const stored = async (key: string) => (await opened.executor.query("SELECT receipt FROM settlements WHERE key = $1", [key]))[0]?.["receipt"];

    test("a claim keeps the receipt in the claim statement (batched and single-claim paths); a draft without one keeps null", async () => {
      const store = opened.settlements;
      const batched = await Promise.all([1, 2, 3].map((n) => store.claim(draft({ mode: "atomic", paymentId: null, wireTransaction: null, lastValidBlockHeight: null, receipt: receipt(`b${n}`) }))));
      for (const [n, claim] of batched.entries()) expect(await stored(claim.record.key)).toBe(receipt(`b${n + 1}`));
      const standard = await store.claim(draft());
      expect(await stored(standard.record.key)).toBeNull();
      // Under a Delegation budget the single-claim statement is used.
      const budgeted = draft({ mode: "delegated", receipt: receipt("single") });
      await store.claimWithinBudget(budgeted, { delegation: `D${crypto.randomUUID()}`, remaining: null, usesRemaining: null });
      expect(await stored(budgeted.key)).toBe(receipt("single"));
    });

    test("settledReceipts answers only receipts whose settlement is confirmed, on this network, with the asset and amount it settled", async () => {
      const store = opened.settlements;
      const stats = createSqlPaymentStats(opened.executor, NETWORK);
      const settle = async (label: string, outcome: "settled" | "failed" | "pending", network = NETWORK) => {
        const d = draft({ mode: "attestation", network, paymentId: null, wireTransaction: null, lastValidBlockHeight: null, receipt: receipt(label) });
        await store.claim(d);
        if (outcome === "settled") await store.finish(d.key, d.signature, { state: "settled" });
        if (outcome === "failed") await store.finish(d.key, d.signature, { state: "failed", error: "MODE_TX_FAILED" });
        return d;
      };
      await settle("ok", "settled");
      await settle("failed", "failed");
      await settle("pending", "pending");
      await settle("elsewhere", "settled", OTHER_NETWORK);
      const asked = ["ok", "failed", "pending", "elsewhere", "unknown"].map(receipt);
      expect(await stats.settledReceipts(asked)).toEqual(settledAs([receipt("ok")]));
      expect(await stats.settledReceipts([])).toEqual(new Map());
    });

    test("a failed record retaken keeps the new attempt's receipt; it counts once it settles", async () => {
      const store = opened.settlements;
      const stats = createSqlPaymentStats(opened.executor, NETWORK);
      const first = draft({ mode: "atomic", paymentId: null, wireTransaction: null, lastValidBlockHeight: null, receipt: receipt("retake1") });
      await store.claim(first);
      await store.finish(first.key, first.signature, { state: "failed", error: "MODE_TX_FAILED" });
      const retry = { ...first, signature: `${first.signature}r`, receipt: receipt("retake2") };
      expect((await store.claim(retry)).outcome).toBe("claimed");
      expect(await stored(first.key)).toBe(receipt("retake2"));
      expect(await stats.settledReceipts([receipt("retake2")])).toEqual(new Map());
      await store.finish(retry.key, retry.signature, { state: "settled" });
      expect(await stats.settledReceipts([receipt("retake1"), receipt("retake2")])).toEqual(settledAs([receipt("retake2")]));
    });

    test("lookups of more receipts than one statement takes find every settled one", async () => {
      const store = opened.settlements;
      const stats = createSqlPaymentStats(opened.executor, NETWORK);
      const labels = Array.from({ length: 1_100 }, (_, n) => `many${n}`);
      const settledLabels = ["many0", "many499", "many500", "many1099"];
      for (const label of settledLabels) {
        const d = draft({ mode: "atomic", paymentId: null, wireTransaction: null, lastValidBlockHeight: null, receipt: receipt(label) });
        await store.claim(d);
        await store.finish(d.key, d.signature, { state: "settled" });
      }
      expect(await stats.settledReceipts(labels.map(receipt))).toEqual(settledAs(settledLabels.map(receipt)));
    });
  });
}

describeStore("PGlite (in memory)", () => openStore({ inMemory: true }));

const gate = await postgresGate("tests/store");
describe("payment receipts: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));
if (gate.run) {
  const database = useTestDatabase();
  describeStore("PostgreSQL (real server)", () => openStore({ databaseUrl: database().url, maxConnections: 4 }));
}
