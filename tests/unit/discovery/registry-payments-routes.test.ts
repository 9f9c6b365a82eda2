import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import type { AgentPayments } from "../../../src/application/registry/agent-payments.ts";
import { encodeAgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { encodeFeedbackEntry } from "../../../src/domain/registry/feedback-entry.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import { registryRoutes } from "../../../src/http/registry/registry-routes.ts";
import { createAgentIndex } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { agentIdentity, feedbackEntry, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

const SUMMARY = { count: 3, volume: [{ asset: "USDC", amount: "30000" }], distinctPayers: 2, last30Days: { count: 1, volume: [{ asset: "USDC", amount: "10000" }] }, firstAt: "2026-11-01T00:00:00.000Z", lastAt: "2026-11-26T00:00:00.000Z" };

function setup(payments: AgentPayments) {
  const ledger = createFakeLedger(PROGRAM_ID);
  for (let n = 0; n < 3; n++) ledger.put(testAddress(9, n), padded(encodeAgentIdentity(agentIdentity(n)), 600));
  const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
  const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES), payments }));
  return async (path: string) => {
    const response = await app.handle(new Request(`http://registry.test${path}`));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

describe("registry payments through app.handle (hand-written payments source, real index over a fake ledger)", () => {
  test("the detail carries `payments` scoped as settled through this facilitator, for the agent's owner", async () => {
    const owners: string[] = [];
    const get = setup({ summaryFor: async (owner) => (owners.push(owner), SUMMARY), countsByOwner: async () => new Map(), settledReceipts: async () => new Map() });
    const { status, body } = await get(`/agents/${agentIdentity(1).nftMint}`);
    expect(status).toBe(200);
    expect(body["payments"]).toEqual({ scope: "settled through this facilitator", ...SUMMARY });
    expect(owners).toEqual([agentIdentity(1).owner]);
  });

  test("a store that cannot answer leaves `payments` out of the detail (200), and makes minPayments a 503, never a 500", async () => {
    const get = setup({ summaryFor: async () => Promise.reject(new Error("connection refused")), countsByOwner: async () => Promise.reject(new Error("connection refused")), settledReceipts: async () => Promise.reject(new Error("connection refused")) });
    const detail = await get(`/agents/${agentIdentity(1).nftMint}`);
    expect(detail.status).toBe(200);
    expect("payments" in detail.body).toBe(false);
    const list = await get("/agents?minPayments=1");
    expect(list.status).toBe(503);
    expect(JSON.stringify(list.body)).not.toContain("connection refused");
  });

  test("minPayments keeps agents whose owner reached it; without it the list never asks for counts", async () => {
    let asked = 0;
    const counts = new Map([[agentIdentity(2).owner as string, 2]]);
    const get = setup({ summaryFor: async () => SUMMARY, countsByOwner: async () => (asked++, counts), settledReceipts: async () => new Map() });
    expect(((await get("/agents")).body["data"] as unknown[]).length).toBe(3);
    expect(asked).toBe(0);
    const paid = await get("/agents?minPayments=2");
    expect((paid.body["data"] as { nftMint: string }[]).map((a) => a.nftMint)).toEqual([agentIdentity(2).nftMint]);
    expect(((await get("/agents?minPayments=3")).body["data"] as unknown[]).length).toBe(0);
  });

  test("a settlement store that stalls does not hold the feedback list: it is served without settledHere", async () => {
    const ledger = createFakeLedger(PROGRAM_ID);
    const agent = agentIdentity(0);
    ledger.put(testAddress(9, 0), padded(encodeAgentIdentity(agent), 600));
    ledger.put(testAddress(8, 0), encodeFeedbackEntry(feedbackEntry(agent.nftMint, 0)));
    // The background reader's answers: a URI and a receipt for every entry.
    const feedbackDetails = { detailUriOf: () => "https://reviews.example/0.json", paymentReceiptOf: () => testAddress(3, 1), indexed: () => {} };
    const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feedbackDetails });
    let asked = 0;
    const stalled: AgentPayments = { summaryFor: async () => SUMMARY, countsByOwner: async () => new Map(), settledReceipts: () => (asked++, new Promise(() => {})) };
    const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES), payments: stalled }));
    const response = await app.handle(new Request(`http://registry.test/agents/${agent.nftMint}/feedback`));
    expect(response.status).toBe(200);
    const items = (await response.json()) as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(items[0]?.["detailUri"]).toBe("https://reviews.example/0.json");
    expect("settledHere" in (items[0] as object)).toBe(false);
    expect(asked).toBe(1);
  }, 10_000);
});
