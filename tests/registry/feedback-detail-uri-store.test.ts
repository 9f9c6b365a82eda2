/**
 * The feedback_detail_uris table (migrations 6 and 13) through its SQL store, on embedded PGlite and a real
 * PostgreSQL server (skipped with a printed reason when unreachable, required under CI=true).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address, Signature } from "@solana/kit";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlFeedbackDetailUriStore } from "../../src/infrastructure/store/sql-feedback-detail-uri-store.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { type TestDatabase, postgresGate, useTestDatabase } from "../support/postgres.ts";
import { testAddress } from "./support/registry-fixtures.ts";

const SIGNATURE = "5".repeat(88) as Signature;

function describeStore(name: string, open: () => Promise<OpenedStore>): void {
  describe(`feedback detail URI store: ${name}`, () => {
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
    }, 30_000);
    afterAll(async () => {
      await opened?.close();
    });

    test("save then find; the first URI saved for an address stays; unknown addresses are absent", async () => {
      const store = createSqlFeedbackDetailUriStore(opened.executor);
      const [a, b, c] = [testAddress(6, 1), testAddress(6, 2), testAddress(6, 3)];
      expect((await store.find([a, b])).size).toBe(0);
      await store.save({ address: a, detailUri: "https://reviews.example/1.json", signature: SIGNATURE, fetchedAtMs: 1_750_000_000_000, paymentReceipt: null });
      await store.save({ address: b, detailUri: `ipfs://Qm"quoted",{'braces'}/ünïcode ✓`, signature: SIGNATURE, fetchedAtMs: 1_750_000_000_000, paymentReceipt: null });
      await store.save({ address: a, detailUri: "https://other.example/", signature: SIGNATURE, fetchedAtMs: 1_750_000_001_000, paymentReceipt: null });
      await store.save({ address: c, detailUri: "", signature: SIGNATURE, fetchedAtMs: 1_750_000_000_000, paymentReceipt: null });
      expect(await store.find([a, b, c, testAddress(6, 4)])).toEqual(
        new Map([
          [a, { detailUri: "https://reviews.example/1.json", signature: SIGNATURE, paymentReceipt: null }],
          [b, { detailUri: `ipfs://Qm"quoted",{'braces'}/ünïcode ✓`, signature: SIGNATURE, paymentReceipt: null }],
          [c, { detailUri: "", signature: SIGNATURE, paymentReceipt: null }],
        ]),
      );
      const [row] = await opened.executor.query("SELECT signature, fetched_at = '2025-06-15T15:06:40Z'::timestamptz AS at FROM feedback_detail_uris WHERE address = $1", [a]);
      expect(row).toEqual({ signature: SIGNATURE, at: true });
    });

    test("the payment receipt is kept beside the URI; a row saved before receipts were read (migration 13) is unknown until saved again, which fills only the receipt", async () => {
      const store = createSqlFeedbackDetailUriStore(opened.executor);
      const [paid, unpaid, old] = [testAddress(6, 11), testAddress(6, 12), testAddress(6, 13)];
      const receipt = testAddress(3, 77);
      await store.save({ address: paid, detailUri: "https://r.example/paid", signature: SIGNATURE, fetchedAtMs: 0, paymentReceipt: receipt });
      await store.save({ address: unpaid, detailUri: "https://r.example/unpaid", signature: SIGNATURE, fetchedAtMs: 0, paymentReceipt: null });
      // A row as migration 6's reader wrote it: the new columns at their defaults.
      await opened.executor.query("INSERT INTO feedback_detail_uris (address, detail_uri, signature) VALUES ($1, $2, $3)", [old, "https://r.example/old", SIGNATURE]);
      expect(await store.find([paid, unpaid, old])).toEqual(
        new Map([
          [paid, { detailUri: "https://r.example/paid", signature: SIGNATURE, paymentReceipt: receipt }],
          [unpaid, { detailUri: "https://r.example/unpaid", signature: SIGNATURE, paymentReceipt: null }],
          [old, { detailUri: "https://r.example/old", signature: SIGNATURE, paymentReceipt: undefined }],
        ]),
      );
      // Read again: the old row gets its receipt and keeps its URI; a row already read changes nothing.
      await store.save({ address: old, detailUri: "https://r.example/other", signature: SIGNATURE, fetchedAtMs: 0, paymentReceipt: receipt });
      await store.save({ address: unpaid, detailUri: "https://r.example/other", signature: SIGNATURE, fetchedAtMs: 0, paymentReceipt: receipt });
      const after = await store.find([unpaid, old]);
      expect(after.get(old)).toEqual({ detailUri: "https://r.example/old", signature: SIGNATURE, paymentReceipt: receipt });
      expect(after.get(unpaid)).toEqual({ detailUri: "https://r.example/unpaid", signature: SIGNATURE, paymentReceipt: null });
    });

    test("lookups of more addresses than one batch find every stored one", async () => {
      const store = createSqlFeedbackDetailUriStore(opened.executor);
      const addresses: Address[] = Array.from({ length: 1_203 }, (_, n) => testAddress(5, n));
      for (const n of [0, 499, 500, 1_000, 1_202]) {
        await store.save({ address: addresses[n] as Address, detailUri: `https://r.example/${n}`, signature: SIGNATURE, fetchedAtMs: 0, paymentReceipt: null });
      }
      const found = await store.find(addresses);
      expect([...found.values()].map((d) => d.detailUri).sort()).toEqual(["https://r.example/0", "https://r.example/1000", "https://r.example/1202", "https://r.example/499", "https://r.example/500"]);
    });
  });
}

describeStore("PGlite (in memory)", () => openStore({ inMemory: true }));

const gate = await postgresGate("tests/registry");
describe("feedback detail URI store: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));
if (gate.run) {
  const database = useTestDatabase();
  describeStore("PostgreSQL (real server)", () => openStore({ databaseUrl: database().url, maxConnections: 4 }));
}
