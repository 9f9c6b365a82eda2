import { describe, expect, test } from "bun:test";
import { createAgentPayments, pageOfPaidAgents } from "../../../src/application/registry/agent-payments.ts";
import type { PaymentStats, PaymentsSummary } from "../../../src/application/ports/payment-stats.ts";
import type { AgentPage, AgentPageRequest } from "../../../src/domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../../src/domain/registry/agent-record.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { agentIdentity, testAddress } from "../../registry/support/registry-fixtures.ts";

const PAID = [{ asset: "USDC", amount: "5" }];
const settledAs = (...receipts: string[]) => new Map(receipts.map((r) => [r, PAID]));
const SUMMARY: PaymentsSummary = { count: 1, volume: [{ asset: "USDC", amount: "5" }], distinctPayers: 1, last30Days: { count: 1, volume: [] }, firstAt: null, lastAt: null };

function fakeStats() {
  const calls = { summary: 0, counts: 0, receipts: [] as string[][] };
  let fail = false;
  const stats: PaymentStats = {
    summaryFor: async () => {
      calls.summary += 1;
      if (fail) throw new Error("store down");
      return SUMMARY;
    },
    countsByPayTo: async () => {
      calls.counts += 1;
      if (fail) throw new Error("store down");
      return new Map([["owner", calls.counts]]);
    },
    settledReceipts: async (receipts) => {
      calls.receipts.push([...receipts]);
      if (fail) throw new Error("store down");
      return new Map(receipts.filter((r) => r.startsWith("settled")).map((r) => [r, PAID]));
    },
  };
  return { stats, calls, failNext: (value: boolean) => (fail = value) };
}

describe("agent payments (settlement-store reads behind caches)", () => {
  test("the detail's summary is read once per owner per detailCacheMs; a failure is not cached", async () => {
    const clock = createManualClock();
    const { stats, calls, failNext } = fakeStats();
    const payments = createAgentPayments({ stats, clock, detailCacheMs: 5_000 });
    await payments.summaryFor("owner");
    await payments.summaryFor("owner");
    expect(calls.summary).toBe(1);
    clock.advance(5_001);
    failNext(true);
    await expect(payments.summaryFor("owner")).rejects.toThrow("store down");
    failNext(false);
    expect(await payments.summaryFor("owner")).toEqual(SUMMARY);
    expect(calls.summary).toBe(3);
  });

  test("counts: one read, then stale answers at once while the next read runs in the background", async () => {
    const clock = createManualClock();
    const { stats, calls } = fakeStats();
    const payments = createAgentPayments({ stats, clock, countsCacheMs: 30_000 });
    expect((await payments.countsByOwner()).get("owner")).toBe(1);
    expect((await payments.countsByOwner()).get("owner")).toBe(1);
    expect(calls.counts).toBe(1);
    clock.advance(30_001);
    expect((await payments.countsByOwner()).get("owner")).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await payments.countsByOwner()).get("owner")).toBe(2);
  });

  test("settled receipts: a settled one is remembered for good, an unsettled one is asked again after detailCacheMs, a failure is not cached", async () => {
    const clock = createManualClock();
    const { stats, calls, failNext } = fakeStats();
    const payments = createAgentPayments({ stats, clock, detailCacheMs: 5_000 });
    expect(await payments.settledReceipts(["settledA", "otherB", "settledA"])).toEqual(settledAs("settledA"));
    expect(await payments.settledReceipts(["settledA", "otherB"])).toEqual(settledAs("settledA"));
    expect(calls.receipts).toEqual([["settledA", "otherB"]]);
    clock.advance(5_001);
    expect(await payments.settledReceipts(["settledA", "otherB", "settledC"])).toEqual(settledAs("settledA", "settledC"));
    expect(calls.receipts.at(-1)).toEqual(["otherB", "settledC"]);
    clock.advance(5_001);
    failNext(true);
    await expect(payments.settledReceipts(["otherB"])).rejects.toThrow("store down");
    failNext(false);
    expect(await payments.settledReceipts(["otherB", "settledA"])).toEqual(settledAs("settledA"));
    expect(calls.receipts.at(-1)).toEqual(["otherB"]);
  });

  test("concurrent misses for the same receipts share one store query", async () => {
    const clock = createManualClock();
    const asked: string[][] = [];
    let answer: (found: ReadonlySet<string>) => void = () => {};
    const stats: PaymentStats = {
      summaryFor: async () => SUMMARY,
      countsByPayTo: async () => new Map(),
      settledReceipts: (receipts) => {
        asked.push([...receipts]);
        return new Promise((resolve) => (answer = (found) => resolve(new Map([...found].map((r) => [r, PAID])))));
      },
    };
    const payments = createAgentPayments({ stats, clock });
    const first = payments.settledReceipts(["settledA", "otherB"]);
    const second = payments.settledReceipts(["otherB", "settledA"]);
    const third = payments.settledReceipts(["settledA"]);
    expect(asked).toEqual([["settledA", "otherB"]]);
    answer(new Set(["settledA"]));
    expect(await Promise.all([first, second, third])).toEqual([settledAs("settledA"), settledAs("settledA"), settledAs("settledA")]);
    expect(asked).toHaveLength(1);
  });
});

describe("pageOfPaidAgents (minPayments over the index's own order)", () => {
  const records: AgentRecord[] = Array.from({ length: 250 }, (_, n) => {
    const identity = agentIdentity(n, { owner: testAddress(4, n % 5), updatedAt: BigInt(1_000 - n) });
    return { address: testAddress(9, n), identity };
  });
  const index = {
    listAgents: async (request: AgentPageRequest): Promise<AgentPage> => {
      const start = request.after ? records.findIndex((r) => r.identity.nftMint === request.after?.nftMint) + 1 : 0;
      const items = records.slice(start, start + request.limit);
      const last = items.at(-1);
      return { items, nextKey: start + request.limit < records.length && last ? { updatedAt: last.identity.updatedAt, nftMint: last.identity.nftMint } : null };
    },
  };
  const counts = new Map([[testAddress(4, 2), 3]]);

  test("keeps only agents whose owner has at least minPayments, across index pages, with a cursor that goes on", async () => {
    const first = await pageOfPaidAgents(index, { limit: 20 }, counts, 2);
    expect(first.items).toHaveLength(20);
    expect(first.items.every((a) => a.identity.owner === testAddress(4, 2))).toBe(true);
    const rest = await pageOfPaidAgents(index, { limit: 100, ...(first.nextKey ? { after: first.nextKey } : {}) }, counts, 2);
    expect(rest.items).toHaveLength(30);
    expect(rest.nextKey).toBeNull();
    expect(new Set([...first.items, ...rest.items].map((a) => a.identity.nftMint)).size).toBe(50);
  });

  test("no owner reaching minPayments: an empty last page", async () => {
    expect(await pageOfPaidAgents(index, { limit: 20 }, counts, 4)).toEqual({ items: [], nextKey: null });
  });
});
