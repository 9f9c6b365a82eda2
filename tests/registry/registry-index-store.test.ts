/**
 * The registry index kept in the store (migration 9): its SQL store on embedded PGlite and a real
 * PostgreSQL server (skipped with a printed reason when unreachable, required under CI=true), and a
 * restart of the real index over the embedded litesvm ledger that serves from the store at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { systemClock } from "../../src/application/ports/clock.ts";
import type { Ledger } from "../../src/application/ports/ledger.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import type { StoredAccountRow } from "../../src/application/ports/registry-account-store.ts";
import { encodeAgentIdentity, type AgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { encodeAgentService } from "../../src/domain/registry/agent-service.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createLocalProgramFeed } from "../../src/infrastructure/ledger/local-program-feed.ts";
import { createAgentIndex, type RefreshReport } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlRegistryAccountStore } from "../../src/infrastructure/store/sql-registry-account-store.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";
import { agentIdentity, agentService, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

const OTHER_PROGRAM = testAddress(8, 8);

function describeStore(name: string, open: () => Promise<OpenedStore>): void {
  describe(`registry account store: ${name}`, () => {
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
    }, 30_000);
    afterAll(async () => {
      await opened?.close();
    });

    async function loaded(store: ReturnType<typeof createSqlRegistryAccountStore>, kind: string) {
      const rows: StoredAccountRow[] = [];
      const completeAt = await store.load(kind, async (page) => void rows.push(...page));
      return { completeAt, rows: rows.map((r) => [r.address, r.slot, [...r.data]]) };
    }

    test("nothing is served before a full read was saved; then pages in address order, per program and kind", async () => {
      const store = createSqlRegistryAccountStore(opened.executor, PROGRAM_ID);
      const other = createSqlRegistryAccountStore(opened.executor, OTHER_PROGRAM);
      const accounts = Array.from({ length: 2_345 }, (_, n) => ({ address: testAddress(9, n), slot: BigInt(n), data: Uint8Array.from([n % 256, 1, 2]) }));
      await store.save("agents", accounts);
      expect(await loaded(store, "agents")).toEqual({ completeAt: null, rows: [] });
      await store.markComplete("agents", 1_750_000_000_123);
      await other.save("agents", [{ address: testAddress(9, 1), slot: 1n, data: Uint8Array.from([9]) }]);
      await other.markComplete("agents", 1);
      await store.save("services", [{ address: testAddress(7, 1), slot: 1n, data: Uint8Array.from([7]) }]);
      const { completeAt, rows } = await loaded(store, "agents");
      expect(completeAt).toBe(1_750_000_000_123);
      expect(rows.length).toBe(2_345);
      expect(rows.map((r) => String(r[0])).sort()).toEqual(accounts.map((a) => a.address).sort());
      expect(rows.find((r) => r[0] === testAddress(9, 300))).toEqual([testAddress(9, 300), 300n, [300 % 256, 1, 2]]);
      // An earlier completion never moves the mark back.
      await store.markComplete("agents", 5);
      expect((await loaded(store, "agents")).completeAt).toBe(1_750_000_000_123);
    });

    test("a state from an earlier slot never replaces a later one, for writes and for deletions; slots past 2^53 are exact", async () => {
      const store = createSqlRegistryAccountStore(opened.executor, PROGRAM_ID);
      const [a, b] = [testAddress(5, 1), testAddress(5, 2)];
      const big = 2n ** 60n + 7n;
      await store.save("feedback", [{ address: a, slot: 10n, data: Uint8Array.from([1]) }, { address: b, slot: big, data: Uint8Array.from([2]) }]);
      await store.save("feedback", [{ address: a, slot: 9n, data: Uint8Array.from([0]) }, { address: b, slot: 10n, data: null }]);
      await store.markComplete("feedback", 1);
      expect((await loaded(store, "feedback")).rows).toEqual([[a, 10n, [1]], [b, big, [2]]].sort((x, y) => String(x[0]).localeCompare(String(y[0]))) as never);
      await store.save("feedback", [{ address: a, slot: 11n, data: null }, { address: b, slot: big, data: Uint8Array.from([3, 0, 255]) }]);
      expect((await loaded(store, "feedback")).rows).toEqual([[b, big, [3, 0, 255]]]);
    });

    test("a sweep deletes the accounts the index does not keep, over several pages, except those stored from a later slot", async () => {
      // A program of its own: the tests above left rows under the other two.
      const store = createSqlRegistryAccountStore(opened.executor, testAddress(8, 9), { pageRows: 10 });
      const other = createSqlRegistryAccountStore(opened.executor, testAddress(8, 10));
      const accounts = Array.from({ length: 95 }, (_, n) => ({ address: testAddress(6, n), slot: 10n, data: Uint8Array.from([n]) }));
      await store.save("services", accounts);
      await other.save("services", [{ address: testAddress(6, 1), slot: 1n, data: Uint8Array.from([1]) }]);
      await store.markComplete("services", 1);
      await other.markComplete("services", 1);
      // The index keeps the even ones; odd account 5 was stored from a slot after the sweep's read.
      await store.save("services", [{ address: testAddress(6, 5), slot: 50n, data: Uint8Array.from([5, 5]) }]);
      const keep = new Set(accounts.filter((_, n) => n % 2 === 0).map((a) => a.address as string));
      const swept = await store.sweep("services", (address) => keep.has(address), 20n);
      expect(swept).toBe(46);
      const rows = (await loaded(store, "services")).rows.map((r) => String(r[0])).sort();
      expect(rows).toEqual([...keep, testAddress(6, 5)].sort());
      // Another program's rows are not this store's to sweep.
      expect((await loaded(other, "services")).rows.length).toBe(1);
    });
  });
}

describeStore("PGlite (in memory)", () => openStore({ inMemory: true }));

const gate = await postgresGate("tests/registry");
describe("registry account store: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));
if (gate.run) {
  const database = useTestDatabase();
  describeStore("PostgreSQL (real server)", () => openStore({ databaseUrl: database().url, maxConnections: 4 }));
}

describe("index restart from the store (embedded ledger and its feed, PGlite in memory)", () => {
  test("a restarted index serves what it had at once, while its ledger does not answer, then catches up with what changed meanwhile", async () => {
    const store = await openStore({ inMemory: true });
    const ledger = createLocalLedger();
    const put = (n: number, agent: AgentIdentity) => ledger.setAccount(testAddress(9, n), { lamports: 5_000_000n, owner: PROGRAM_ID, data: padded(encodeAgentIdentity(agent), 600) });
    for (let n = 0; n < 40; n++) put(n, agentIdentity(n));
    const mint = agentIdentity(3).nftMint;
    ledger.setAccount(testAddress(7, 1), { lamports: 1n, owner: PROGRAM_ID, data: encodeAgentService(agentService(mint, "mcp")) });
    const accounts = createSqlRegistryAccountStore(store.executor, PROGRAM_ID as Address);
    try {
      const first = createAgentIndex({ ledger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts });
      await first.ready();
      put(5, agentIdentity(5, { metadataUri: "https://pushed.example/5", updatedAt: 1_800_000_000n }));
      for (let i = 0; i < 100 && (await first.getAgent(agentIdentity(5).nftMint))?.identity.metadataUri !== "https://pushed.example/5"; i++) await Bun.sleep(10);
      await first.close();

      // Down while the restart happens: the ledger (an RPC node) holds every full read.
      put(6, agentIdentity(6, { active: false }));
      // A state saved from a pushed write at a real chain's slot (far past this ledger's): the
      // catch-up read must still replace it, and remove an account the ledger no longer has.
      const staleUri = "https://stale.example/7";
      await accounts.save("agents", [
        { address: testAddress(9, 7), slot: 400_000_000n, data: padded(encodeAgentIdentity(agentIdentity(7, { metadataUri: staleUri })), 600) },
        { address: testAddress(9, 99), slot: 400_000_000n, data: padded(encodeAgentIdentity(agentIdentity(99)), 600) },
      ]);
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const slowLedger: Ledger = { ...ledger, getProgramAccounts: async (program, filters) => (await held, ledger.getProgramAccounts(program, filters)) };
      const reports: RefreshReport[] = [];
      const second = createAgentIndex({ ledger: slowLedger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts, onRefresh: (r) => reports.push(r) });
      const started = performance.now();
      await second.ready();
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(reports.map((r) => [r.kind, r.source, r.accounts])).toEqual(expect.arrayContaining([["agents", "store", 41], ["services", "store", 1]]));
      expect((await second.listAgents({ limit: 100 })).items.length).toBe(41);
      expect((await second.getAgent(agentIdentity(5).nftMint))?.identity.metadataUri).toBe("https://pushed.example/5");
      expect((await second.listServices(mint, {}))?.length).toBe(1);
      expect((await second.getAgent(agentIdentity(6).nftMint))?.identity.active).toBe(true);
      expect((await second.getAgent(agentIdentity(7).nftMint))?.identity.metadataUri).toBe(staleUri);
      expect(await second.getAgent(agentIdentity(99).nftMint)).not.toBeNull();

      release();
      for (let i = 0; i < 200 && (await second.getAgent(agentIdentity(6).nftMint))?.identity.active !== false; i++) await Bun.sleep(10);
      expect((await second.getAgent(agentIdentity(6).nftMint))?.identity.active).toBe(false);
      expect((await second.getAgent(agentIdentity(7).nftMint))?.identity.metadataUri).toBe(agentIdentity(7).metadataUri);
      expect(await second.getAgent(agentIdentity(99).nftMint)).toBeNull();
      expect(reports.filter((r) => r.source === "read").map((r) => r.kind).sort()).toEqual(["agents", "feedback", "services"]);
      await second.close();
    } finally {
      await store.close();
    }
  }, 30_000);
});
