/**
 * The agents of a signed-in user: the real agent index over the embedded litesvm ledger, following
 * its writes through the ledger's own programSubscribe feed (wrapped only to count and fail
 * getProgramAccounts calls).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { createOwnedAgents } from "../../src/application/auth/owned-agents.ts";
import { systemClock } from "../../src/application/ports/clock.ts";
import type { Ledger } from "../../src/application/ports/ledger.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createLocalProgramFeed } from "../../src/infrastructure/ledger/local-program-feed.ts";
import { createAgentIndex, type LiveAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { PROGRAM_ID } from "../registry/support/registry-fixtures.ts";
import { seedAgent } from "./support/sign-in-client.ts";

const open: LiveAgentIndex[] = [];
afterEach(async () => {
  for (const index of open.splice(0)) await index.close();
});

async function rig(withFeed: boolean) {
  const embedded = createLocalLedger();
  const counts = { reads: 0 };
  let failing = false;
  const ledger: Ledger = {
    ...embedded,
    getProgramAccounts: async (program, filters) => {
      counts.reads += 1;
      if (failing) throw new Error("rpc down");
      return embedded.getProgramAccounts(program, filters);
    },
  };
  const index = createAgentIndex({ ledger, clock: systemClock, programId: PROGRAM_ID as Address, ttlMs: 30_000, logger: silentLogger, ...(withFeed ? { feed: createLocalProgramFeed(embedded) } : {}) });
  open.push(index);
  await index.ready();
  return { embedded, counts, index, ownedAgents: createOwnedAgents({ index }), fail: (on: boolean) => void (failing = on) };
}

/** Asks until `expected` is the answer or 2 s passed (the feed applies writes in batches of 100 ms). */
async function eventually(read: () => Promise<readonly string[]>, expected: readonly string[]): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 2_000) {
    if (JSON.stringify(await read()) === JSON.stringify(expected)) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Number.POSITIVE_INFINITY;
}

describe("agents of a signed-in user (embedded ledger, real agent index, its programSubscribe feed)", () => {
  test("an agent registered after the index loaded is listed within a second, with no ledger read per request", async () => {
    const r = await rig(true);
    const readsAtStart = r.counts.reads;
    expect(readsAtStart).toBe(3); // agents, feedback, services: one full read each
    const owner = (await generateKeyPairSigner()).address;
    expect(await r.ownedAgents(owner)).toEqual([]);
    const first = await seedAgent(r.embedded, 1, owner);
    expect(await eventually(() => r.ownedAgents(owner), [first])).toBeLessThan(1_000);
    const second = await seedAgent(r.embedded, 2, owner);
    expect(await eventually(async () => [...(await r.ownedAgents(owner))].sort(), [first, second].sort())).toBeLessThan(1_000);
    await Promise.all(Array.from({ length: 50 }, () => r.ownedAgents(owner)));
    expect(r.counts.reads).toBe(readsAtStart);
  });

  test("a ledger that fails after start-up does not fail the answer: the index still has the agents", async () => {
    const r = await rig(true);
    const owner = (await generateKeyPairSigner()).address;
    const mint = await seedAgent(r.embedded, 30, owner);
    r.fail(true);
    await r.index.refresh().catch(() => {});
    expect(await eventually(() => r.ownedAgents(owner), [mint])).toBeLessThan(1_000);
    expect(r.index.health().status).toBe("degraded");
  });

  test("without a feed, an agent registered after the last full read is listed after the next one (every TTL), not before", async () => {
    const r = await rig(false);
    const owner = (await generateKeyPairSigner()).address;
    const mint = await seedAgent(r.embedded, 40, owner);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await r.ownedAgents(owner)).toEqual([]);
    await r.index.refresh();
    expect(await r.ownedAgents(owner)).toEqual([mint]);
  });
});
