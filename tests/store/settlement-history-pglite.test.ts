/**
 * The audit's read model (sql-settlement-history.ts) on PGlite, whose driver parses int8 into a JS
 * number: keyset pages in insertion order never repeat or skip a record past the ninth (a text
 * cursor ordered as text would go 1, 10, 100, ...), and the window holds a network's records
 * claimed or written since the time, including one claimed earlier and written in it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SOLANA_DEVNET, SOLANA_MAINNET } from "../../src/domain/networks.ts";
import type { HistoryCursor } from "../../src/application/ports/settlement-history.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { createSqlSettlementHistory } from "../../src/infrastructure/store/sql-settlement-history.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";

describe("settlement history pages (PGlite)", () => {
  let store: OpenedStore;
  const inWindow: string[] = [];
  let since: Date;
  let dataDir: string;

  beforeAll(async () => {
    // A data directory starts from the PGlite template (an in-memory database runs initdb: ~30 s here).
    dataDir = mkdtempSync(join(tmpdir(), "history-test-"));
    store = await openStore({ dataDir });
    const claim = async (key: string, network = SOLANA_DEVNET) => expect((await store.settlements.claim(draft({ key, network, signature: `sig-${key}` }))).outcome).toBe("claimed");
    await claim("old-untouched");
    await claim("old-then-finished");
    await store.executor.query("UPDATE settlements SET created_at = now() - interval '1 day', updated_at = now() - interval '1 day'");
    since = new Date(Date.now() - 60_000);
    // Claimed a day ago, finished within the window: it belongs to the audit.
    expect(await store.settlements.finish("old-then-finished", "sig-old-then-finished", { state: "settled" })).toBe(true);
    inWindow.push("old-then-finished");
    // The bulk in one statement (600 claims one by one take half a minute on PGlite).
    await store.executor.query(
      `INSERT INTO settlements (key, payer, pay_to, asset, amount, network, mode, signature)
       SELECT 'k' || lpad(i::text, 4, '0'), 'payer', 'payTo', 'asset', 1, $1, 'standard', 'sig-' || i FROM generate_series(0, 599) AS i ORDER BY i`,
      [SOLANA_DEVNET],
    );
    for (let i = 0; i < 600; i++) inWindow.push(`k${String(i).padStart(4, "0")}`);
    await claim("elsewhere", SOLANA_MAINNET);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("pages of 256 cover the window exactly once, in insertion order", async () => {
    const history = createSqlSettlementHistory(store.executor);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: HistoryCursor | null = null;
    do {
      const page = await history.writtenSince(SOLANA_DEVNET, since, cursor, 256);
      sizes.push(page.records.length);
      seen.push(...page.records.map((record) => record.key));
      cursor = page.next;
    } while (cursor !== null);
    // 601 records: "old-then-finished" was inserted second, so it comes first.
    expect(sizes).toEqual([256, 256, 89]);
    expect(seen).toEqual(inWindow);
  });
});
