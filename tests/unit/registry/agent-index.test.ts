import { afterEach, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { RegistryIndexUnavailableError } from "../../../src/application/ports/agent-index.ts";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import type { ProgramAccountFeed, ProgramFeedHandlers } from "../../../src/application/ports/program-account-feed.ts";
import { AGENT_IDENTITY_DISCRIMINATOR, encodeAgentIdentity, type AgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { AGENT_SERVICE_DISCRIMINATOR, encodeAgentService } from "../../../src/domain/registry/agent-service.ts";
import { FEEDBACK_ENTRY_DISCRIMINATOR, encodeFeedbackEntry } from "../../../src/domain/registry/feedback-entry.ts";
import { createAgentIndex, type LiveAgentIndex, type RefreshReport } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { createRecordingLogger } from "../../registry/support/recording-logger.ts";
import { agentIdentity, agentService, feedbackEntry, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

/** A hand-written feed (mock of programSubscribe): the test pushes writes and connection changes. */
function createFakeFeed() {
  const subscribers: { filters: unknown; handlers: ProgramFeedHandlers; closed: boolean }[] = [];
  const feed: ProgramAccountFeed = {
    subscribe(_program, filters, handlers) {
      const subscriber = { filters, handlers, closed: false };
      subscribers.push(subscriber);
      return { close: () => void (subscriber.closed = true) };
    },
  };
  const discriminatorOf = (filters: unknown) => [...((filters as { memcmp: { bytes: Uint8Array } }[])[0]?.memcmp.bytes ?? [])].join();
  return {
    feed,
    subscribers,
    status: (status: "live" | "lost") => subscribers.forEach((s) => s.handlers.status(status)),
    /** Pushes a write to the subscriber whose discriminator filter matches. */
    push(address: Address, data: Uint8Array, slot: bigint, owner: Address = PROGRAM_ID, lamports = 1_000_000n) {
      const head = [...data.subarray(0, 8)].join();
      for (const s of subscribers) if (discriminatorOf(s.filters) === head) s.handlers.change({ address, owner, lamports, data, slot });
    },
  };
}

const open: LiveAgentIndex[] = [];
afterEach(async () => {
  for (const index of open.splice(0)) await index.close();
});

function setup(count = 5, extra: Partial<Parameters<typeof createAgentIndex>[0]> = {}, before: (ledger: ReturnType<typeof createFakeLedger>) => void = () => {}) {
  const ledger = createFakeLedger(PROGRAM_ID);
  const clock = createManualClock();
  const logger = createRecordingLogger();
  const timers: { callback: () => void; delayMs: number; cancelled: boolean }[] = [];
  const reports: RefreshReport[] = [];
  const putAgent = (agent: AgentIdentity, n: number) => ledger.put(testAddress(9, n), padded(encodeAgentIdentity(agent), 600));
  for (let n = 0; n < count; n++) putAgent(agentIdentity(n), n);
  before(ledger);
  const index = createAgentIndex({
    ledger,
    clock,
    programId: PROGRAM_ID,
    ttlMs: 30_000,
    logger,
    schedule: (callback, delayMs) => {
      const timer = { callback, delayMs, cancelled: false };
      timers.push(timer);
      return () => void (timer.cancelled = true);
    },
    onRefresh: (report) => reports.push(report),
    ...extra,
  });
  open.push(index);
  /** Fires the pending timers set for `delayMs` (all pending ones without it). */
  const fire = (delayMs?: number) => {
    for (const timer of timers.splice(0)) {
      if (timer.cancelled) continue;
      if (delayMs === undefined || timer.delayMs === delayMs) timer.callback();
      else timers.push(timer);
    }
  };
  /** Fires the pending batch timers of pushed writes (100 ms, longer after a costly batch, at most 1 s). */
  const fireBatch = () => {
    for (const timer of timers.splice(0)) {
      if (timer.cancelled) continue;
      if (timer.delayMs >= 100 && timer.delayMs <= 1_000) timer.callback();
      else timers.push(timer);
    }
  };
  const reads = (discriminator: Uint8Array) => ledger.calls.filter((c) => "memcmp" in (c.filters[0] ?? {}) && [...(c.filters[0] as { memcmp: { bytes: Uint8Array } }).memcmp.bytes].join() === [...discriminator].join()).length;
  return { ledger, clock, logger, index, putAgent, fire, fireBatch, timers, reports, reads };
}

const mints = async (index: LiveAgentIndex, filter = {}) => (await index.listAgents({ limit: 100, ...filter })).items.map((r) => r.identity.nftMint);
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Waits (real time, bounded) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("agent index without a feed (fake Ledger, manual clock, hand-fired timers)", () => {
  test("at start-up, before any request, each kind is read once with its discriminator memcmp", async () => {
    const { index, ledger, reads } = setup();
    await index.ready();
    expect(ledger.calls.length).toBe(3);
    expect(ledger.calls.every((c) => c.program === PROGRAM_ID && c.filters.length === 1)).toBe(true);
    expect([reads(new Uint8Array(AGENT_IDENTITY_DISCRIMINATOR)), reads(new Uint8Array(FEEDBACK_ENTRY_DISCRIMINATOR)), reads(new Uint8Array(AGENT_SERVICE_DISCRIMINATOR))]).toEqual([1, 1, 1]);
    expect(ledger.calls[0]?.filters).toEqual([{ memcmp: { offset: 0, bytes: new Uint8Array([11, 149, 31, 27, 186, 76, 241, 72]) } }]);
  });

  test("requests before the first load wait for it (500 of them, still 3 reads); after it no request reads the ledger", async () => {
    const { index, ledger } = setup(50);
    const release = ledger.hold();
    const mint = agentIdentity(1).nftMint;
    const requests = Array.from({ length: 500 }, (_, i) => (i % 5 === 0 ? index.listServices(mint, {}) : index.listAgents({ limit: 1 + (i % 100) })));
    await settle();
    release();
    const answers = await Promise.all(requests);
    expect(answers.every((a) => a !== null)).toBe(true);
    await Promise.all(Array.from({ length: 100 }, () => Promise.all([index.getAgent(mint), index.listFeedback(mint, {}), index.listServices(mint, {}), index.agentsOwnedBy(testAddress(2, 1))])));
    expect(ledger.calls.length).toBe(3);
  });

  test("a change appears with the next full read, every TTL, and not before; a read that finds nothing changed keeps the same records", async () => {
    const { index, fire, putAgent, reports } = setup();
    await index.ready();
    const before = await mints(index);
    const first = await index.listAgents({ limit: 5 });
    putAgent(agentIdentity(1, { updatedAt: 1_800_000_000n }), 1);
    putAgent(agentIdentity(3, { active: false }), 3);
    expect(await mints(index)).toEqual(before);
    fire(30_000);
    await until(async () => (await mints(index))[0] === agentIdentity(1).nftMint);
    expect((await mints(index))[0]).toBe(agentIdentity(1).nftMint);
    expect(await mints(index, { active: false })).toEqual([agentIdentity(3).nftMint]);
    expect(reports.filter((r) => r.kind === "agents").map((r) => r.changed)).toEqual([5, 2]);
    const kept = (await index.listAgents({ limit: 5 })).items.find((r) => r.identity.nftMint === agentIdentity(4).nftMint);
    expect(kept).toBe(first.items.find((r) => r.identity.nftMint === agentIdentity(4).nftMint) as NonNullable<typeof kept>);
  });

  test("while a full read is in flight, list, detail and services requests are answered at once from the current model", async () => {
    const { ledger, index, fire, putAgent } = setup();
    await index.ready();
    putAgent(agentIdentity(1, { updatedAt: 1_800_000_000n }), 1);
    const release = ledger.hold();
    fire(30_000);
    let answered = 0;
    const mint = agentIdentity(1).nftMint;
    void index.listAgents({ limit: 5 }).then(() => answered++);
    void index.getAgent(mint).then(() => answered++);
    void index.listServices(mint, {}).then(() => answered++);
    await settle();
    expect(answered).toBe(3);
    expect((await mints(index))[0]).toBe(agentIdentity(4).nftMint);
    release();
    await until(async () => (await mints(index))[0] === mint);
    expect((await mints(index))[0]).toBe(mint);
  });

  test("a failed full read keeps serving the last good model, health says degraded without the URL's secret, and the retry recovers", async () => {
    const { index, ledger, fire, putAgent, clock } = setup();
    await index.ready();
    expect(index.health()).toMatchObject({ status: "ok", lastError: null, agentCount: 5, feed: "polling" });
    expect(index.health().lastRefreshAt).toBe(new Date(clock.now()).toISOString());
    putAgent(agentIdentity(77), 77);
    ledger.failWith(new LedgerError("unavailable", "fetch to https://rpc.example/?api-key=SECRET123 failed"));
    fire(30_000);
    await until(() => index.health().status === "degraded");
    expect((await mints(index)).length).toBe(5);
    const health = index.health();
    expect(health).toMatchObject({ status: "degraded", agentCount: 5 });
    expect(health.lastError).toContain("LedgerError");
    expect(health.lastError).not.toContain("SECRET123");
    ledger.failWith(null);
    fire(5_000);
    await until(() => index.health().status === "ok");
    expect((await mints(index)).length).toBe(6);
  });

  test("cold start with a failing ledger: requests get the unavailable error (503) at once, health is degraded; the retry loads", async () => {
    const { index, ledger, fire } = setup(5, {}, (l) => l.failWith(new LedgerError("unavailable", "connection refused")));
    await expect(index.listAgents({ limit: 20 })).rejects.toBeInstanceOf(RegistryIndexUnavailableError);
    await expect(index.listAgents({ limit: 20 })).rejects.toBeInstanceOf(RegistryIndexUnavailableError);
    expect(index.health()).toMatchObject({ status: "degraded", lastRefreshAt: null, agentCount: 0 });
    ledger.failWith(null);
    fire(5_000);
    await index.ready();
    expect((await mints(index)).length).toBe(5);
  });

  test("undecodable and foreign-owned accounts are skipped and logged, never fatal", async () => {
    const { index, ledger, logger } = setup(3, {});
    const disc = new Uint8Array([11, 149, 31, 27, 186, 76, 241, 72]);
    ledger.put(testAddress(9, 100), disc); // discriminator only
    ledger.put(testAddress(9, 101), encodeAgentIdentity(agentIdentity(101)).subarray(0, 90)); // truncated
    ledger.put(testAddress(9, 102), encodeAgentIdentity(agentIdentity(102)), testAddress(8, 1)); // forged owner
    ledger.misbehave();
    await index.refresh();
    expect((await mints(index)).length).toBe(3);
    const warning = logger.lines.find((l) => l.message.startsWith("skipped registry accounts") && l.fields["count"] === 3);
    expect(warning).toBeDefined();
  });

  test("feedback and services are served from the start-up load; unknown agents give null", async () => {
    const mint = agentIdentity(1).nftMint;
    const { index, ledger } = setup(3, {}, (l) => {
      l.put(testAddress(6, 1), encodeFeedbackEntry(feedbackEntry(mint, 1)));
      l.put(testAddress(6, 2), encodeFeedbackEntry(feedbackEntry(mint, 2, { revoked: true })));
      l.put(testAddress(6, 3), encodeFeedbackEntry(feedbackEntry(agentIdentity(2).nftMint, 3)));
      l.put(testAddress(7, 1), encodeAgentService(agentService(mint, "mcp")));
      l.put(testAddress(7, 2), encodeAgentService(agentService(mint, "web", { active: false })));
    });
    await index.ready();
    expect((await index.listFeedback(mint, {}))?.length).toBe(1);
    expect((await index.listFeedback(mint, { includeRevoked: true }))?.length).toBe(2);
    expect((await index.listServices(mint, { active: true }))?.map((s) => s.service.serviceType)).toEqual(["mcp"]);
    expect(await index.listFeedback(testAddress(1, 999), {})).toBeNull();
    expect(await index.listServices(testAddress(1, 999), {})).toBeNull();
    expect(ledger.calls.length).toBe(3);
  });

  test("agentsOwnedBy answers from the index (no owner-filtered read)", async () => {
    const { index, ledger } = setup(8);
    const owned = await index.agentsOwnedBy(testAddress(2, 1));
    expect(owned.map((r) => r.identity.nftMint).sort()).toEqual([agentIdentity(1).nftMint, agentIdentity(5).nftMint].sort());
    expect(ledger.calls.every((c) => c.filters.length === 1)).toBe(true);
  });

  test("index work pauses in slices, and requests arriving between slices are served from the current model", async () => {
    let yields = 0;
    let served = 0;
    let indexRef: LiveAgentIndex | null = null;
    const { index, putAgent, reports } = setup(3_000, {
      sliceMs: 0,
      yieldNow: async () => {
        yields++;
        if (indexRef && reports.length >= 3) served += (await indexRef.listAgents({ limit: 1 })).items.length;
      },
    });
    indexRef = index;
    await index.ready();
    const coldYields = yields;
    expect(coldYields).toBeGreaterThan(10);
    putAgent(agentIdentity(5, { updatedAt: 1_800_000_000n }), 5);
    await index.refresh();
    expect(yields).toBeGreaterThan(coldYields);
    expect(served).toBeGreaterThan(0);
    expect(reports.every((r) => r.longestSliceMs >= 0 && r.busyMs > 0)).toBe(true);
  });
});

describe("agent index with a feed (fake programSubscribe, fake Ledger, hand-fired timers)", () => {
  test("the first full read waits for the feed to be live, then pushed writes show after one batch with no further read", async () => {
    const fake = createFakeFeed();
    const { index, ledger, fireBatch, reports } = setup(5, { feed: fake.feed });
    await settle();
    expect(ledger.calls.length).toBe(0);
    expect(fake.subscribers.length).toBe(3);
    fake.status("live");
    await index.ready();
    expect(ledger.calls.length).toBe(3);
    expect(index.health().feed).toBe("live");

    const changed = padded(encodeAgentIdentity(agentIdentity(2, { updatedAt: 1_900_000_000n, active: false })), 600);
    fake.push(testAddress(9, 2), changed, 10n);
    fake.push(testAddress(9, 50), padded(encodeAgentIdentity(agentIdentity(50)), 600), 10n);
    const mint = agentIdentity(2).nftMint;
    fake.push(testAddress(6, 1), encodeFeedbackEntry(feedbackEntry(mint, 1)), 10n);
    fake.push(testAddress(7, 1), encodeAgentService(agentService(mint, "a2a")), 10n);
    expect((await mints(index))[0]).toBe(agentIdentity(4).nftMint);
    fireBatch();
    await until(async () => (await mints(index))[0] === mint && (await index.listServices(mint, {}))?.length === 1);
    expect((await mints(index))[0]).toBe(mint);
    expect(await mints(index, { active: false })).toEqual([mint]);
    expect((await mints(index)).length).toBe(6);
    expect((await index.listFeedback(mint, {}))?.length).toBe(1);
    expect((await index.listServices(mint, {}))?.map((s) => s.service.serviceType)).toEqual(["a2a"]);
    expect(ledger.calls.length).toBe(3);
    expect(reports.filter((r) => r.source === "feed").map((r) => r.changed).sort()).toEqual([1, 1, 2]);
  });

  test("a forged write (another owner) or one without lamports takes the account out, never in", async () => {
    const fake = createFakeFeed();
    const { index, fireBatch } = setup(3, { feed: fake.feed });
    fake.status("live");
    await index.ready();
    fake.push(testAddress(9, 60), padded(encodeAgentIdentity(agentIdentity(60)), 600), 5n, testAddress(8, 1));
    fake.push(testAddress(9, 1), padded(encodeAgentIdentity(agentIdentity(1)), 600), 5n, PROGRAM_ID, 0n);
    fireBatch();
    await until(async () => (await mints(index)).length === 2);
    expect((await mints(index)).sort()).toEqual([agentIdentity(0).nftMint, agentIdentity(2).nftMint].sort());
  });

  test("a write pushed while a full read is in flight is not undone by the read's older bytes", async () => {
    const fake = createFakeFeed();
    const { index, ledger, fireBatch } = setup(3, { feed: fake.feed });
    fake.status("live");
    await index.ready();
    fake.push(testAddress(9, 1), padded(encodeAgentIdentity(agentIdentity(1)), 600), 7n);
    fireBatch();
    const release = ledger.hold();
    const reading = index.refresh();
    await settle();
    fake.push(testAddress(9, 1), padded(encodeAgentIdentity(agentIdentity(1, { metadataUri: "https://pushed.example/1" })), 600), 8n);
    fireBatch();
    release();
    await reading;
    fireBatch();
    await until(async () => (await index.getAgent(agentIdentity(1).nftMint))?.identity.metadataUri === "https://pushed.example/1");
    expect((await index.getAgent(agentIdentity(1).nftMint))?.identity.metadataUri).toBe("https://pushed.example/1");
  });

  test("a lost feed polls every TTL until it is live again; coming back live reads everything once; full reads run every reconcile interval", async () => {
    const fake = createFakeFeed();
    const { index, ledger, fire, timers, putAgent } = setup(3, { feed: fake.feed, reconcileMs: 600_000 });
    fake.status("live");
    await index.ready();
    await until(() => timers.some((t) => !t.cancelled && t.delayMs === 600_000));
    expect(timers.some((t) => !t.cancelled && t.delayMs === 600_000)).toBe(true);
    fake.status("lost");
    expect(index.health().feed).toBe("polling");
    expect(timers.some((t) => !t.cancelled && t.delayMs === 30_000)).toBe(true);
    putAgent(agentIdentity(40), 40);
    fire(30_000);
    await until(async () => (await mints(index)).length === 4);
    expect((await mints(index)).length).toBe(4);
    const readsBefore = ledger.calls.length;
    putAgent(agentIdentity(41), 41);
    fake.status("live");
    await until(async () => (await mints(index)).length === 5);
    expect(ledger.calls.length).toBe(readsBefore + 3);
    expect(index.health().feed).toBe("live");
  });

  test("close() ends the feed subscriptions and timers", async () => {
    const fake = createFakeFeed();
    const { index, timers } = setup(2, { feed: fake.feed });
    fake.status("live");
    await index.ready();
    await index.close();
    expect(fake.subscribers.every((s) => s.closed)).toBe(true);
    expect(timers.every((t) => t.cancelled)).toBe(true);
  });
});

describe("agent index: shared tag lists", () => {
  test("agents with the same tags share one frozen list of shared tag instances; their tags and category filters are unchanged", async () => {
    const { index } = setup(6, {}, (ledger) => ledger.put(testAddress(9, 50), padded(encodeAgentIdentity(agentIdentity(50, { tags: [] })), 600)));
    await index.ready();
    const tagsOf = async (n: number) => (await index.getAgent(agentIdentity(n).nftMint))?.identity.tags ?? [];
    const [a, b, c] = [await tagsOf(0), await tagsOf(2), await tagsOf(1)];
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(Object.isFrozen(a)).toBe(true);
    expect(a).toEqual(agentIdentity(0).tags);
    expect(c).toEqual(agentIdentity(1).tags);
    expect(await tagsOf(50)).toEqual([]);
    expect((await mints(index, { categoryHash: Buffer.from(agentIdentity(0).tags[0] as Uint8Array).toString("hex") })).sort()).toEqual([0, 2, 4].map((n) => agentIdentity(n).nftMint).sort());
  });
});
