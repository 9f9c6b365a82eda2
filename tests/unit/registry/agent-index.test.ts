import { describe, expect, test } from "bun:test";
import { RegistryIndexUnavailableError } from "../../../src/application/ports/agent-index.ts";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { AGENT_OWNER_OFFSET, encodeAgentIdentity, type AgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { encodeAgentService } from "../../../src/domain/registry/agent-service.ts";
import { encodeFeedbackEntry } from "../../../src/domain/registry/feedback-entry.ts";
import { createAgentIndex, type RefreshReport } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { createRecordingLogger } from "../../registry/support/recording-logger.ts";
import { agentIdentity, agentService, feedbackEntry, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

function setup(count = 5) {
  const ledger = createFakeLedger(PROGRAM_ID);
  const clock = createManualClock();
  const logger = createRecordingLogger();
  const putAgent = (agent: AgentIdentity, n: number) => ledger.put(testAddress(9, n), padded(encodeAgentIdentity(agent), 600));
  for (let n = 0; n < count; n++) putAgent(agentIdentity(n), n);
  const index = createAgentIndex({ ledger, clock, programId: PROGRAM_ID, ttlMs: 30_000, logger });
  return { ledger, clock, logger, index, putAgent };
}

const mints = async (index: ReturnType<typeof setup>["index"], filter = {}) =>
  (await index.listAgents({ limit: 100, ...filter })).items.map((r) => r.identity.nftMint);

describe("agent index over a fake Ledger (mock) with an injected manual clock", () => {
  test("reads agents with one discriminator-filtered getProgramAccounts call", async () => {
    const { index, ledger } = setup();
    expect((await mints(index)).length).toBe(5);
    expect(ledger.calls.length).toBe(1);
    const [call] = ledger.calls;
    expect(call?.program).toBe(PROGRAM_ID);
    expect(call?.filters).toEqual([{ memcmp: { offset: 0, bytes: new Uint8Array([11, 149, 31, 27, 186, 76, 241, 72]) } }]);
  });

  test("an on-chain change (updated_at bumped, agent deactivated) appears after the TTL and not before", async () => {
    const { index, clock, putAgent } = setup();
    const before = await mints(index);
    expect(before[0]).toBe(agentIdentity(4).nftMint);

    putAgent(agentIdentity(1, { updatedAt: 1_800_000_000n }), 1);
    putAgent(agentIdentity(3, { active: false }), 3);

    clock.advance(29_999);
    expect(await mints(index)).toEqual(before);
    expect(await mints(index, { active: false })).toEqual([]);

    clock.advance(1);
    const after = await mints(index);
    expect(after[0]).toBe(agentIdentity(1).nftMint);
    expect(await mints(index, { active: false })).toEqual([agentIdentity(3).nftMint]);
  });

  test("500 concurrent list requests during a refresh cause one getProgramAccounts call", async () => {
    const { index, ledger, clock } = setup(50);
    const release = ledger.hold();
    const requests = Array.from({ length: 500 }, (_, i) => index.listAgents({ limit: 1 + (i % 100) }));
    expect(ledger.calls.length).toBe(1);
    release();
    const pages = await Promise.all(requests);
    expect(ledger.calls.length).toBe(1);
    expect(pages.every((p) => p.items.length > 0)).toBe(true);

    // Again once the model has expired: the stale model is refreshed once for everyone.
    clock.advance(30_000);
    const releaseAgain = ledger.hold();
    const more = Array.from({ length: 500 }, () => index.listAgents({ limit: 20 }));
    releaseAgain();
    await Promise.all(more);
    expect(ledger.calls.length).toBe(2);
  });

  test("a failed refresh keeps serving the last good model and health reports degraded", async () => {
    const { index, ledger, clock, putAgent } = setup();
    await mints(index);
    expect(index.health()).toMatchObject({ status: "ok", lastError: null, agentCount: 5 });
    const lastRefreshAt = index.health().lastRefreshAt;
    expect(lastRefreshAt).toBe(new Date(clock.now()).toISOString());

    putAgent(agentIdentity(77), 77);
    ledger.failWith(new LedgerError("unavailable", "fetch to https://rpc.example/?api-key=SECRET123 failed"));
    clock.advance(30_000);
    expect((await mints(index)).length).toBe(5);
    const health = index.health();
    expect(health).toMatchObject({ status: "degraded", lastRefreshAt, agentCount: 5 });
    expect(health.lastError).toContain("LedgerError");
    expect(health.lastError).not.toContain("SECRET123");
    expect(ledger.calls.length).toBe(2);

    ledger.failWith(null);
    clock.advance(5_000);
    expect((await mints(index)).length).toBe(6);
    expect(index.health()).toMatchObject({ status: "ok", lastError: null, agentCount: 6 });
  });

  test("cold start with a failing ledger: unavailable error, degraded health", async () => {
    const { index, ledger } = setup();
    ledger.failWith(new LedgerError("unavailable", "connection refused"));
    await expect(index.listAgents({ limit: 20 })).rejects.toBeInstanceOf(RegistryIndexUnavailableError);
    expect(index.health()).toMatchObject({ status: "degraded", lastRefreshAt: null, agentCount: 0 });
  });

  test("undecodable and foreign-owned accounts are skipped and logged, never fatal", async () => {
    const { index, ledger, logger } = setup(3);
    const disc = new Uint8Array([11, 149, 31, 27, 186, 76, 241, 72]);
    ledger.put(testAddress(9, 100), disc); // discriminator only
    ledger.put(testAddress(9, 101), encodeAgentIdentity(agentIdentity(101)).subarray(0, 90)); // truncated
    ledger.put(testAddress(9, 102), encodeAgentIdentity(agentIdentity(102)), testAddress(8, 1)); // forged owner
    ledger.misbehave();
    expect((await mints(index)).length).toBe(3);
    const warning = logger.lines.find((l) => l.message.startsWith("skipped registry accounts"));
    expect(warning?.fields["count"]).toBe(3);
  });

  test("feedback and services load lazily, once per TTL, and unknown agents give null", async () => {
    const { index, ledger } = setup(3);
    const mint = agentIdentity(1).nftMint;
    ledger.put(testAddress(6, 1), encodeFeedbackEntry(feedbackEntry(mint, 1)));
    ledger.put(testAddress(6, 2), encodeFeedbackEntry(feedbackEntry(mint, 2, { revoked: true })));
    ledger.put(testAddress(6, 3), encodeFeedbackEntry(feedbackEntry(agentIdentity(2).nftMint, 3)));
    ledger.put(testAddress(7, 1), encodeAgentService(agentService(mint, "mcp")));
    ledger.put(testAddress(7, 2), encodeAgentService(agentService(mint, "web", { active: false })));

    await index.listAgents({ limit: 5 });
    expect(ledger.calls.length).toBe(1);
    expect((await index.listFeedback(mint, {}))?.length).toBe(1);
    expect((await index.listFeedback(mint, { includeRevoked: true }))?.length).toBe(2);
    expect((await index.listServices(mint, { active: true }))?.map((s) => s.service.serviceType)).toEqual(["mcp"]);
    await index.listFeedback(mint, {});
    await index.listServices(mint, {});
    expect(ledger.calls.length).toBe(3);
    expect(await index.listFeedback(testAddress(1, 999), {})).toBeNull();
    expect(await index.listServices(testAddress(1, 999), {})).toBeNull();
  });

  test("unchanged accounts keep their decoded record across refreshes; changed ones are decoded again", async () => {
    const { index, clock, putAgent } = setup(3);
    const mint0 = agentIdentity(0).nftMint;
    const mint1 = agentIdentity(1).nftMint;
    const before0 = await index.getAgent(mint0);
    const before1 = await index.getAgent(mint1);
    putAgent(agentIdentity(1, { metadataUri: "https://changed.example/1" }), 1);
    clock.advance(30_000);
    expect(await index.getAgent(mint0)).toBe(before0 as NonNullable<typeof before0>);
    const after1 = await index.getAgent(mint1);
    expect(after1).not.toBe(before1 as NonNullable<typeof before1>);
    expect(after1?.identity.metadataUri).toBe("https://changed.example/1");
  });

  test("agentsOwnedBy reads fresh with the owner memcmp at offset 40", async () => {
    const { index, ledger } = setup(8);
    const owner = testAddress(2, 1);
    const owned = await index.agentsOwnedBy(owner);
    expect(owned.map((r) => r.identity.nftMint).sort()).toEqual([agentIdentity(1).nftMint, agentIdentity(5).nftMint].sort());
    const call = ledger.calls.at(-1);
    expect(call?.filters[1]).toMatchObject({ memcmp: { offset: AGENT_OWNER_OFFSET } });
  });
});

describe("agent index: refreshes off the request path (fake Ledger, manual clock, hand-fired timer)", () => {
  function setupAhead(count: number, extra: Partial<Parameters<typeof createAgentIndex>[0]> = {}) {
    const ledger = createFakeLedger(PROGRAM_ID);
    const clock = createManualClock();
    const timers: (() => void)[] = [];
    const reports: RefreshReport[] = [];
    const putAgent = (agent: AgentIdentity, n: number) => ledger.put(testAddress(9, n), padded(encodeAgentIdentity(agent), 600));
    for (let n = 0; n < count; n++) putAgent(agentIdentity(n), n);
    const index = createAgentIndex({
      ledger,
      clock,
      programId: PROGRAM_ID,
      ttlMs: 30_000,
      logger: createRecordingLogger(),
      schedule: (callback) => {
        timers.push(callback);
        return () => {};
      },
      onRefresh: (report) => reports.push(report),
      ...extra,
    });
    const fireTimers = () => timers.splice(0).forEach((fire) => fire());
    return { ledger, clock, index, putAgent, fireTimers, reports };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  test("while the refresh ahead of expiry is in flight, list, detail and services requests are answered at once from the current model", async () => {
    const { ledger, clock, index, putAgent, fireTimers } = setupAhead(5);
    const mint = agentIdentity(1).nftMint;
    await index.listAgents({ limit: 5 });
    await index.listServices(mint, {});
    clock.advance(29_000);
    await index.listAgents({ limit: 5 });
    await index.listServices(mint, {});
    putAgent(agentIdentity(1, { updatedAt: 1_800_000_000n }), 1);
    const release = ledger.hold();
    fireTimers();
    expect(ledger.calls.length).toBe(4);

    let answered = 0;
    void index.listAgents({ limit: 5 }).then(() => answered++);
    void index.getAgent(mint).then(() => answered++);
    void index.listServices(mint, {}).then(() => answered++);
    await settle();
    expect(answered).toBe(3);
    expect((await index.listAgents({ limit: 1 })).items[0]?.identity.nftMint).toBe(agentIdentity(4).nftMint);

    release();
    await settle();
    expect((await index.listAgents({ limit: 1 })).items[0]?.identity.nftMint).toBe(mint);
  });

  test("a refresh that finds nothing changed keeps the model; one changed account is one change", async () => {
    const { clock, index, putAgent, reports } = setupAhead(50);
    const first = await index.listAgents({ limit: 50 });
    clock.advance(30_000);
    const again = await index.listAgents({ limit: 50 });
    expect(reports.map((r) => [r.kind, r.accounts, r.changed])).toEqual([["agents", 50, 50], ["agents", 50, 0]]);
    expect(again.items.every((record, i) => record === first.items[i])).toBe(true);
    putAgent(agentIdentity(7, { active: false }), 7);
    clock.advance(30_000);
    expect((await index.listAgents({ limit: 50, active: false })).items.map((r) => r.identity.nftMint)).toEqual([agentIdentity(7).nftMint]);
    expect(reports.at(-1)).toMatchObject({ kind: "agents", changed: 1 });
  });

  test("refresh work pauses in slices, and requests arriving between slices are served from the current model", async () => {
    let yields = 0;
    let served = 0;
    let indexRef: ReturnType<typeof createAgentIndex> | null = null;
    const { clock, index, reports, putAgent } = setupAhead(3_000, {
      sliceMs: 0,
      yieldNow: async () => {
        yields++;
        // A request that lands between two slices of the second refresh.
        if (indexRef && reports.length === 1) served += (await indexRef.listAgents({ limit: 1 })).items.length;
      },
    });
    indexRef = index;
    await index.refresh();
    const coldYields = yields;
    expect(coldYields).toBeGreaterThan(10);
    // A refresh while the model is still fresh, as the refresh ahead of expiry runs.
    clock.advance(29_000);
    putAgent(agentIdentity(5, { updatedAt: 1_800_000_000n }), 5);
    await index.refresh();
    expect(yields).toBeGreaterThan(coldYields);
    expect(served).toBeGreaterThan(0);
    expect(reports.every((r) => r.longestSliceMs >= 0 && r.busyMs > 0)).toBe(true);
  });
});

