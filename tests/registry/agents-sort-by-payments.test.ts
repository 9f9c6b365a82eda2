/**
 * GET /agents?sort=payments through app.handle, with real settlements in a real store (PGlite):
 * the order, cursors that walk every agent exactly once, the filters and minPayments combined
 * with it, and bad cursors answered 400 in the service's error shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { Elysia } from "elysia";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { createAgentPayments } from "../../src/application/registry/agent-payments.ts";
import { encodeAgentIdentity, type AgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { encodePaymentsCursor } from "../../src/domain/registry/payments-order.ts";
import { errorLayer } from "../../src/http/error-layer.ts";
import { registryRoutes } from "../../src/http/registry/registry-routes.ts";
import { createAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlPaymentStats } from "../../src/infrastructure/store/sql-payment-stats.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { createFakeLedger } from "./support/fake-ledger.ts";
import { createManualClock } from "./support/manual-clock.ts";
import { agentIdentity, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const OTHER_NETWORK = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const [TOP, TIED_A, TIED_B, FAILED_ONLY] = [testAddress(2, 10), testAddress(2, 11), testAddress(2, 12), testAddress(2, 13)];

/** Agents 0..8: TOP owns 0 and 5, the tied owners one each (3, 7), the rest own one unpaid agent each; 8 is inactive. */
const AGENTS: AgentIdentity[] = Array.from({ length: 9 }, (_, n) => {
  const owner = n === 0 || n === 5 ? TOP : n === 3 ? TIED_B : n === 7 ? TIED_A : n === 1 ? FAILED_ONLY : testAddress(2, 20 + n);
  return agentIdentity(n, { owner, active: n !== 8 });
});
const mint = (n: number) => (AGENTS[n] as AgentIdentity).nftMint;

let store: OpenedStore;
let get: (path: string) => Promise<{ status: number; body: Record<string, unknown> }>;

async function settle(payTo: Address, times: number, outcome: "settled" | "failed" = "settled", network = NETWORK): Promise<void> {
  for (let i = 0; i < times; i++) {
    const d = draft({ payTo, network });
    await store.settlements.claim(d);
    await store.settlements.finish(d.key, d.signature, outcome === "settled" ? { state: "settled" } : { state: "failed", error: "TX_FAILED" });
  }
}

beforeAll(async () => {
  store = await openStore({ inMemory: true });
  await settle(TOP, 3);
  await settle(TIED_A, 1);
  await settle(TIED_B, 1);
  // Neither a failed settlement nor one on another network counts.
  await settle(FAILED_ONLY, 2, "failed");
  await settle(FAILED_ONLY, 4, "settled", OTHER_NETWORK);
  const ledger = createFakeLedger(PROGRAM_ID);
  for (const [n, agent] of AGENTS.entries()) ledger.put(testAddress(9, n), padded(encodeAgentIdentity(agent), 600));
  const clock = createManualClock();
  const index = createAgentIndex({ ledger, clock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
  const payments = createAgentPayments({ stats: createSqlPaymentStats(store.executor, NETWORK), clock });
  const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES), payments }));
  get = async (path) => {
    const response = await app.handle(new Request(`http://registry.test${path}`));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}, 30_000);

afterAll(async () => {
  await store?.close();
});

const mintsOf = (body: Record<string, unknown>) => (body["data"] as { nftMint: string }[]).map((a) => a.nftMint);
const cursorOf = (body: Record<string, unknown>) => body["cursor"] as { next: string | null; hasMore: boolean };

/** Every page of `path` (limit `limit`), following cursor.next. */
async function walk(path: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const { status, body } = await get(`${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(status).toBe(200);
    pages.push(mintsOf(body));
    cursor = cursorOf(body).next;
    expect(cursorOf(body).hasMore).toBe(cursor !== null);
  } while (cursor !== null && pages.length < 20);
  return pages;
}

/** Most payments first, ties by owner then nftMint; then the unpaid agents in the default order. */
function expectedOrder(keep: (n: number) => boolean = () => true): string[] {
  const byMint = (a: number, b: number) => (mint(a) < mint(b) ? -1 : 1);
  const tied = [TIED_A, TIED_B].sort().map((owner) => AGENTS.findIndex((a) => a.owner === owner));
  const paid = [...[0, 5].sort(byMint), ...tied];
  const unpaid = [8, 6, 4, 2, 1];
  return [...paid, ...unpaid].filter(keep).map(mint);
}

describe("GET /agents?sort=payments (real settlements in PGlite, real index over a fake ledger)", () => {
  test("paid agents first by confirmed settlements to their owner (ties stable), then every other agent in the default order", async () => {
    const { status, body } = await get("/agents?sort=payments&limit=100");
    expect(status).toBe(200);
    expect(mintsOf(body)).toEqual(expectedOrder());
    expect(cursorOf(body)).toEqual({ next: null, hasMore: false });
    // The same agents as the default order, each once.
    expect(mintsOf(body).sort()).toEqual(mintsOf((await get("/agents?limit=100")).body).sort());
  });

  test("cursors walk every agent exactly once, across the paid and the unpaid part, whatever the page size", async () => {
    for (const limit of [1, 2, 3, 4]) {
      const pages = await walk("/agents?sort=payments", limit);
      expect(pages.flat()).toEqual(expectedOrder());
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    }
  });

  test("combines with minPayments (the paid part only) and with the list's filters", async () => {
    expect((await walk("/agents?sort=payments&minPayments=1", 2)).flat()).toEqual(expectedOrder((n) => [0, 5, 3, 7].includes(n)));
    expect((await walk("/agents?sort=payments&minPayments=2", 1)).flat()).toEqual(expectedOrder((n) => [0, 5].includes(n)));
    expect((await walk("/agents?sort=payments&minPayments=4", 1)).flat()).toEqual([]);
    // A cursor into the unpaid part lists nothing under minPayments.
    const unpaid = encodePaymentsCursor({ part: "unpaid", after: { updatedAt: 1_800_000_000n, nftMint: mint(0) } });
    expect(mintsOf((await get(`/agents?sort=payments&minPayments=1&cursor=${unpaid}`)).body)).toEqual([]);
    expect((await walk("/agents?sort=payments&category=defi", 2)).flat()).toEqual(expectedOrder((n) => n % 2 === 0));
    expect((await walk("/agents?sort=payments&active=false", 2)).flat()).toEqual([mint(8)]);
    expect((await walk(`/agents?sort=payments&owner=${TIED_B}`, 2)).flat()).toEqual([mint(3)]);
    expect((await walk(`/agents?sort=payments&owner=${FAILED_ONLY}`, 2)).flat()).toEqual([mint(1)]);
    expect((await walk("/agents?sort=payments&q=agents.example/5/", 2)).flat()).toEqual([mint(5)]);
  });

  test("sort=updated is the default order; a cursor belongs to the order that issued it", async () => {
    expect(mintsOf((await get("/agents?sort=updated&limit=100")).body)).toEqual(mintsOf((await get("/agents?limit=100")).body));
    const paymentsCursor = cursorOf((await get("/agents?sort=payments&limit=1")).body).next as string;
    const defaultCursor = cursorOf((await get("/agents?limit=1")).body).next as string;
    const crossed = [
      [`/agents?cursor=${paymentsCursor}`, "cursor was issued for sort=payments; send that sort with it"],
      [`/agents?sort=payments&cursor=${defaultCursor}`, "cursor was issued for the default order, not sort=payments"],
    ] as const;
    for (const [path, message] of crossed) {
      const { status, body } = await get(path);
      expect({ path, status }).toEqual({ path, status: 400 });
      expect(JSON.stringify(body)).toContain(message);
    }
  });

  test("a cursor this API did not issue is a 400 in the error shape, never a 422 or 500", async () => {
    const forged = [
      "not-a-cursor!",
      btoa("p1:paid:0:x:y"),
      encodePaymentsCursor({ part: "paid", key: { count: 1, owner: TOP, nftMint: mint(0) } }).slice(0, -3),
      btoa(`p1:paid:1:${TOP}:${mint(0)}:extra`).replace(/=+$/, ""),
      btoa(`p1:paid:-1:${TOP}:${mint(0)}`).replace(/=+$/, ""),
      btoa(`p1:unpaid:99999999999999999999:${mint(0)}`).replace(/=+$/, ""),
      btoa(`p1:elsewhere:1:${mint(0)}`).replace(/=+$/, ""),
      "A".repeat(200),
    ];
    for (const cursor of forged) {
      const { status, body } = await get(`/agents?sort=payments&cursor=${encodeURIComponent(cursor)}`);
      expect({ cursor, status }).toEqual({ cursor, status: 400 });
      expect(body).toMatchObject({ error: expect.any(String) });
    }
    const badSort = await get("/agents?sort=popular");
    expect(badSort.status).toBe(400);
    expect(JSON.stringify(badSort.body)).toContain("sort");
    // A cursor for an owner that no longer ranks (its count changed) still answers: from where it would be.
    const stale = encodePaymentsCursor({ part: "paid", key: { count: 2, owner: TOP, nftMint: mint(0) } });
    const resumed = await get(`/agents?sort=payments&limit=100&cursor=${stale}`);
    expect(resumed.status).toBe(200);
    expect(mintsOf(resumed.body)).toEqual(expectedOrder().slice(2));
  });
});
