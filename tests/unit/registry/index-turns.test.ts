import { afterEach, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { createTurnQueue, type YieldToEventLoop } from "../../../src/application/registry/sliced-runner.ts";
import { buildAgentCatalog, type AgentCatalog, type AgentPageRequest } from "../../../src/domain/registry/agent-catalog.ts";
import { encodeAgentIdentity, type AgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import type { AgentRecord } from "../../../src/domain/registry/agent-record.ts";
import { toHex } from "../../../src/domain/registry/borsh-codecs.ts";
import { createAgentIndex, type LiveAgentIndex } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { backgroundTurn } from "../../../src/infrastructure/registry/event-loop-turns.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { createRecordingLogger } from "../../registry/support/recording-logger.ts";
import { agentIdentity, hashBytes, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

/**
 * A hand-driven event loop: `yieldOnce` waits for the next turn; `turn()` resolves the waits asked
 * before it began (as a turn's setImmediate callbacks) and lets their continuations run.
 */
function manualLoop() {
  let waiting: (() => void)[] = [];
  const yieldOnce: YieldToEventLoop = () => new Promise<void>((resolve) => waiting.push(resolve));
  return {
    yieldOnce,
    async turn(): Promise<void> {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
      // The continuations (slices) run in microtasks; let them all finish before the turn ends.
      for (let i = 0; i < 20; i++) await Promise.resolve();
    },
  };
}

/** Three tasks of four slices each, yielding through `yieldNow`; the number of slices each turn ran. */
async function slicesPerTurn(loop: ReturnType<typeof manualLoop>, yieldNow: YieldToEventLoop): Promise<number[]> {
  let ran = 0;
  const task = async () => {
    for (let slice = 0; slice < 4; slice++) {
      await yieldNow();
      ran++;
    }
  };
  const tasks = Promise.all([task(), task(), task()]);
  const perTurn: number[] = [];
  while (perTurn.reduce((a, b) => a + b, 0) < 12) {
    const before = ran;
    await loop.turn();
    perTurn.push(ran - before);
  }
  await tasks;
  return perTurn;
}

describe("turns of the event loop for background work", () => {
  test("with one queue a turn runs one task's slice; yielding alone, every waiting task's slice ran in the same turn", async () => {
    const own = manualLoop();
    expect(Math.max(...(await slicesPerTurn(own, own.yieldOnce)))).toBe(3);
    const shared = manualLoop();
    const perTurn = await slicesPerTurn(shared, createTurnQueue(shared.yieldOnce));
    expect(perTurn.every((n) => n <= 1)).toBe(true);
    expect(perTurn.filter((n) => n === 1).length).toBe(12);
  });
});

const open: LiveAgentIndex[] = [];
afterEach(async () => {
  for (const index of open.splice(0)) await index.close();
});

const COUNT = 2_000;
const identityOf = (n: number, version: number): AgentIdentity =>
  agentIdentity(n, { updatedAt: 1_700_000_000n + BigInt((n * 7) % 1_000) + BigInt(version) * 10_000n, active: n % 3 !== 0, owner: testAddress(2, n % 50) });

/** Each kind of list the routes ask for, read whole: the same answers mean the same catalog. */
const REQUESTS: AgentPageRequest[] = [
  { limit: Number.POSITIVE_INFINITY },
  { active: false, limit: Number.POSITIVE_INFINITY },
  { owner: testAddress(2, 7), limit: Number.POSITIVE_INFINITY },
  { categoryHash: toHex(hashBytes("defi")), limit: Number.POSITIVE_INFINITY },
  { q: "/1", limit: Number.POSITIVE_INFINITY },
  { q: "12", active: true, limit: 50 },
];
const rows = (items: readonly AgentRecord[]) => items.map((record) => [record.address, record.identity.nftMint, String(record.identity.updatedAt), record.identity.active]);
const answers = (catalog: AgentCatalog) => REQUESTS.map((request) => rows(catalog.page(request).items));

describe("the index's cold build and a 20 % change, in turns", () => {
  test("give the catalog a build at once gives, and timers get the event loop all along (a timer re-set at each firing fires > 20 times; 2 when the work does not pause)", async () => {
    const ledger = createFakeLedger(PROGRAM_ID);
    const current = new Map<number, AgentIdentity>();
    const put = (n: number, version: number) => {
      const identity = identityOf(n, version);
      current.set(n, identity);
      ledger.put(testAddress(9, n), padded(encodeAgentIdentity(identity), 600));
    };
    for (let n = 0; n < COUNT; n++) put(n, 0);
    // From the work's first turn on, a timer re-set each time it fires counts how often timers got
    // the event loop before the work ended: at every slice when it pauses, a handful of times when it
    // does not (between its steps only).
    let fired = 0;
    let ticking = false;
    const tick = () => {
      fired++;
      if (ticking) setTimeout(tick, 0);
    };
    const yieldNow: YieldToEventLoop = () => {
      if (!ticking) {
        ticking = true;
        setTimeout(tick, 0);
      }
      return backgroundTurn();
    };
    const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 3_600_000, logger: createRecordingLogger(), sliceMs: 1, yieldNow });
    open.push(index);
    const expected = () => buildAgentCatalog([...current].map(([n, identity]) => ({ address: testAddress(9, n) as Address, identity })));
    const indexPages = async () => {
      const pages = [];
      for (const request of REQUESTS) pages.push(rows((await index.listAgents(request)).items));
      return pages;
    };

    await index.ready();
    ticking = false;
    expect(fired).toBeGreaterThan(20);
    expect(await indexPages()).toEqual(answers(expected()));

    for (let n = 0; n < COUNT; n += 5) put(n, 1);
    fired = 0;
    await index.refresh();
    ticking = false;
    expect(fired).toBeGreaterThan(20);
    expect(await indexPages()).toEqual(answers(expected()));
  });
});
