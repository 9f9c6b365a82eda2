/**
 * The snapshot of the built agent index in the store (migration 15): its binary layout, its SQL
 * store on PGlite and a real PostgreSQL server (skipped with a printed reason when unreachable,
 * required under CI=true), and a restart of the real index that serves from it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { systemClock } from "../../src/application/ports/clock.ts";
import type { Ledger } from "../../src/application/ports/ledger.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import type { RegistryAccountStore, StoredAccount } from "../../src/application/ports/registry-account-store.ts";
import { buildAgentCatalog } from "../../src/domain/registry/agent-catalog.ts";
import { encodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import type { AgentRecord } from "../../src/domain/registry/agent-record.ts";
import { finishNow } from "../../src/domain/registry/sliced-work.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createLocalProgramFeed } from "../../src/infrastructure/ledger/local-program-feed.ts";
import { decodeSnapshotChunk, emptySnapshotColumns, encodeSnapshotChunk } from "../../src/infrastructure/registry/agent-snapshot-codec.ts";
import { createAgentIndex, type RefreshReport } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { toIndexedAgent } from "../../src/infrastructure/registry/snapshot-indexed-agent.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlRegistryAccountStore } from "../../src/infrastructure/store/sql-registry-account-store.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";
import { agentIdentity, hashBytes, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

describe("snapshot chunk layout", () => {
  test("every field comes back exactly: u64 past 2^53, negative i64, another authority, non-ASCII URI, several tags, the fingerprint", () => {
    const records: AgentRecord[] = [
      toIndexedAgent(testAddress(9, 1), agentIdentity(1)),
      toIndexedAgent(testAddress(9, 2), agentIdentity(2, { verifiedScoreSum: 2n ** 64n - 1n, ownerVersion: 2n ** 53n, createdAt: -5n, updatedAt: -(2n ** 63n), metadataUri: "https://例え.example/ü/2", feedbackAuthority: testAddress(4, 2), tags: [hashBytes("defi"), hashBytes("ai"), hashBytes("defi")], metadataHash: Uint8Array.from({ length: 32 }, (_, i) => 255 - i), active: false, bump: 7 })),
    ];
    const agents = records.map((record, i) => ({ record, fieldBytes: 300 + i, h1: 0xffff_fff0 + i, h2: i, slot: i === 0 ? 2 ** 53 - 1 : 0 }));
    const columns = emptySnapshotColumns();
    expect(finishNow(decodeSnapshotChunk(finishNow(encodeSnapshotChunk(agents)), columns))).toBe(2);
    expect(columns.records.map((r) => [r.address, r.identity])).toEqual(records.map((r) => [r.address, r.identity]));
    // Every word of the agents (keys packed from the chunk's bytes, times, counters, hash) as made from the identity.
    expect(columns.records).toEqual(records);
    expect(columns.addresses).toEqual(records.map((r) => r.address));
    expect([columns.fieldBytes, columns.h1, columns.h2, columns.slots]).toEqual([[300, 301], [0xffff_fff0, 0xffff_fff1], [0, 1], [2 ** 53 - 1, 0]]);
  });

  test("an address that would not come back as the same text (a byte past ASCII) is refused", () => {
    const record = toIndexedAgent(testAddress(9, 1), agentIdentity(1));
    const chunk = finishNow(encodeSnapshotChunk([{ record, fieldBytes: 1, h1: 1, h2: 1, slot: 1 }]));
    const mint = new TextEncoder().encode(record.identity.nftMint);
    const at = Buffer.from(chunk).indexOf(Buffer.from(mint), Buffer.from(chunk).indexOf(Buffer.from(new TextEncoder().encode(record.address))) + 1);
    expect(at).toBeGreaterThan(0);
    const bad = chunk.slice();
    bad[at + 3] = 0xc3;
    expect(() => finishNow(decodeSnapshotChunk(bad, emptySnapshotColumns()))).toThrow("not an address");
    expect(finishNow(decodeSnapshotChunk(chunk, emptySnapshotColumns()))).toBe(1);
  });

  test("anything else is refused, not half read", () => {
    const chunk = finishNow(encodeSnapshotChunk([{ record: toIndexedAgent(testAddress(9, 1), agentIdentity(1)), fieldBytes: 1, h1: 1, h2: 1, slot: 1 }]));
    expect(() => finishNow(decodeSnapshotChunk(chunk.subarray(0, chunk.length - 3), emptySnapshotColumns()))).toThrow();
    expect(() => finishNow(decodeSnapshotChunk(Uint8Array.from([...chunk, 0]), emptySnapshotColumns()))).toThrow();
    expect(() => finishNow(decodeSnapshotChunk(new Uint8Array(16), emptySnapshotColumns()))).toThrow();
  });
});

/** Chunks past the client's stream buffer (16 KB), so a COPY's pieces are refused and queued. */
async function largeChunks(opened: OpenedStore, program: Address): Promise<void> {
  const store = createSqlRegistryAccountStore(opened.executor, program, { snapshotChunksPerStatement: 2 });
  const big = [0, 1, 2].map((n) => Uint8Array.from({ length: 300_000 + n }, (_, i) => (i * 31 + n) & 255));
  const write = await store.beginSnapshot!("agents");
  await write.put(big);
  expect(await write.commit(5n)).toBe(true);
  for (let round = 0; round < 2; round++) {
    const read: Uint8Array[] = [];
    await store.loadSnapshot!("agents", async (page) => void read.push(...page.map((c) => c.slice())));
    expect(read.map((c, i) => Buffer.from(c).equals(Buffer.from(big[i] as Uint8Array)))).toEqual([true, true, true]);
  }
  await opened.executor.query("DELETE FROM registry_snapshot_chunks WHERE program = $1 AND chunk = 1", [program]);
  await expect(store.loadSnapshot!("agents", async () => {})).rejects.toThrow("changed while it was read");
  const [after] = await opened.executor.query("SELECT count(*)::int AS n FROM registry_snapshot_chunks WHERE program = $1", [program]);
  expect(after?.["n"]).toBe(2);
}

function describeStore(name: string, open: () => Promise<OpenedStore>): void {
  describe(`registry snapshot store: ${name}`, () => {
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
    }, 30_000);
    afterAll(async () => {
      await opened?.close();
    });

    async function chunksOf(store: RegistryAccountStore) {
      const chunks: number[][] = [];
      const head = await store.loadSnapshot!("agents", async (page) => void chunks.push(...page.map((c) => [...c])));
      return { head, chunks };
    }

    test("a snapshot is read back whole in order over several statements; an older one never replaces it, and a lost write leaves nothing", async () => {
      const store = createSqlRegistryAccountStore(opened.executor, PROGRAM_ID, { snapshotChunksPerStatement: 2 });
      expect(await chunksOf(store)).toEqual({ head: null, chunks: [] });
      const write = await store.beginSnapshot!("agents");
      await write.put([Uint8Array.from([1]), Uint8Array.from([2, 2])]);
      await write.put([Uint8Array.from([3]), Uint8Array.from([]), Uint8Array.from([5, 0, 255])]);
      expect(await write.commit(2n ** 60n)).toBe(true);
      const { head, chunks } = await chunksOf(store);
      expect(head?.slot).toBe(2n ** 60n);
      expect(chunks).toEqual([[1], [2, 2], [3], [], [5, 0, 255]]);
      const older = await store.beginSnapshot!("agents");
      await older.put([Uint8Array.from([9])]);
      expect(await older.commit(10n)).toBe(false);
      expect((await chunksOf(store)).chunks).toEqual([[1], [2, 2], [3], [], [5, 0, 255]]);
      const [left] = await opened.executor.query("SELECT count(*)::int AS n FROM registry_snapshot_chunks WHERE program = $1", [PROGRAM_ID]);
      expect(left?.["n"]).toBe(5);
    });

    test("large chunks come back byte for byte; a chunk gone from the snapshot (replaced under the read) fails the read, and the store answers after it", () => largeChunks(opened, testAddress(8, 4)));

    test("the accounts saved since a snapshot are those whose bytes changed after it was taken, not those written again unchanged", async () => {
      const store = createSqlRegistryAccountStore(opened.executor, testAddress(8, 3), { pageRows: 2 });
      const row = (n: number, byte: number, slot = 1n) => ({ address: testAddress(6, n), slot, data: Uint8Array.from([byte]) });
      // The test compares times written by different connections (saved_at, taken_at): a few ms
      // between the steps keep their order unambiguous (one CI run saw an unchanged row as newer).
      await store.save("agents", [row(1, 1), row(2, 2), row(3, 3)]);
      await Bun.sleep(20);
      const write = await store.beginSnapshot!("agents");
      expect(await write.commit(1n)).toBe(true);
      await Bun.sleep(20);
      await store.save("agents", [row(1, 1, 2n), row(2, 20, 2n), row(3, 3, 2n), row(4, 4, 2n), row(5, 5, 2n), row(6, 6, 2n)]);
      const since: StoredAccount[] = [];
      const { head } = await chunksOf(store);
      await store.loadSince!("agents", head!.takenAt, async (page) => void since.push(...page));
      expect(since.map((r) => [r.address, [...r.data!]]).sort()).toEqual([row(2, 20), row(4, 4), row(5, 5), row(6, 6)].map((r) => [r.address, [...r.data]]).sort());
    });

    test("accounts closed since a snapshot are handed over as closed (with their slot), unless stored again since; a later snapshot drops the notes it holds", async () => {
      const program = testAddress(8, 7);
      const store = createSqlRegistryAccountStore(opened.executor, program, { pageRows: 2 });
      const row = (n: number, slot = 1n) => ({ address: testAddress(6, n), slot, data: Uint8Array.from([n]) });
      const closed = (n: number, slot: bigint) => ({ address: testAddress(6, n), slot, data: null });
      await store.save("agents", [row(1), row(2), row(3), row(4), row(5)]);
      await store.save("agents", [closed(5, 1n)]);
      await Bun.sleep(20);
      const write = await store.beginSnapshot!("agents");
      expect(await write.commit(1n)).toBe(true);
      await Bun.sleep(20);
      // 1, 2 and 4 close after it; 2 comes back; a closure at a slot older than the stored state (3) deletes nothing and is not noted.
      await store.save("agents", [closed(1, 7n), closed(2, 7n), closed(3, 0n), closed(4, 9n)]);
      await store.save("agents", [row(2, 8n)]);
      const since: StoredAccount[] = [];
      const { head } = await chunksOf(store);
      await store.loadSince!("agents", head!.takenAt, async (page) => void since.push(...page));
      expect(since.map((r) => [r.address, r.slot, r.data === null]).sort()).toEqual([
        [testAddress(6, 1), 7n, true],
        [testAddress(6, 2), 8n, false],
        [testAddress(6, 4), 9n, true],
      ].sort());
      const notes = async () => (await opened.executor.query("SELECT address FROM registry_account_closures WHERE program = $1 ORDER BY address", [program])).map((r) => r["address"]);
      // 5's note is older than the snapshot: dropped when it was committed.
      expect(await notes()).toEqual([testAddress(6, 1), testAddress(6, 2), testAddress(6, 4)].sort());
      await Bun.sleep(20);
      const next = await store.beginSnapshot!("agents");
      expect(await next.commit(9n)).toBe(true);
      expect(await notes()).toEqual([]);
    });
  });
}

describeStore("PGlite (in memory)", () => openStore({ inMemory: true }));

const gate = await postgresGate("tests/registry");
describe("registry snapshot store: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));
if (gate.run) {
  const database = useTestDatabase();
  describeStore("PostgreSQL (real server)", () => openStore({ databaseUrl: database().url, maxConnections: 4 }));
  // One connection: a COPY that left it paused (postgres 3.4.9 resumes a paused socket only from
  // the stream's next read) made every later statement on it wait forever.
  describe("index restart from a bad snapshot (PostgreSQL, real server)", () => {
    test("a chunk whose bytes are not a chunk falls back to the stored accounts, which serve every agent", async () => {
      const opened = await openStore({ databaseUrl: database().url, maxConnections: 4 });
      const program = testAddress(8, 6);
      const ledger = createLocalLedger();
      for (let n = 0; n < 20; n++) ledger.setAccount(testAddress(9, n), { lamports: 5_000_000n, owner: program, data: padded(encodeAgentIdentity(agentIdentity(n)), 600) });
      const accounts = createSqlRegistryAccountStore(opened.executor, program);
      try {
        const first = createAgentIndex({ ledger, clock: systemClock, programId: program, ttlMs: 30_000, logger: silentLogger, store: accounts });
        await first.ready();
        await first.close();
        const changed = await opened.executor.query("UPDATE registry_snapshot_chunks SET data = '\\x7834533105000000'::bytea WHERE program = $1 RETURNING chunk", [program]);
        expect(changed.length).toBe(1);
        const held: Ledger = { ...ledger, getProgramAccounts: () => new Promise(() => {}) };
        const reports: RefreshReport[] = [];
        const second = createAgentIndex({ ledger: held, clock: systemClock, programId: program, ttlMs: 30_000, logger: silentLogger, store: accounts, onRefresh: (r) => reports.push(r) });
        await second.ready();
        expect((await second.listAgents({ limit: 100 })).items.map((r) => r.address).sort()).toEqual(Array.from({ length: 20 }, (_, n) => testAddress(9, n)).sort());
        expect(reports.filter((r) => r.kind === "agents").map((r) => [r.source, r.accounts])).toEqual([["store", 20]]);
        await second.close();
      } finally {
        await opened.close();
      }
    }, 60_000);
  });

  describe("registry snapshot store: PostgreSQL (real server, one connection)", () => {
    test("snapshots read one after another and a statement after them all answer on the one connection", async () => {
      const opened = await openStore({ databaseUrl: database().url, maxConnections: 1 });
      try {
        await largeChunks(opened, testAddress(8, 5));
      } finally {
        await opened.close();
      }
    }, 30_000);
  });
}

describe("index restart from the snapshot (embedded ledger and its feed, PGlite in memory)", () => {

  test("serves the snapshot with what was saved after it while the ledger does not answer; q answers as a full catalog does; catches up after", async () => {
    const store = await openStore({ inMemory: true });
    const ledger = createLocalLedger();
    const put = (n: number, overrides = {}) => ledger.setAccount(testAddress(9, n), { lamports: 5_000_000n, owner: PROGRAM_ID, data: padded(encodeAgentIdentity(agentIdentity(n, overrides)), 600) });
    for (let n = 0; n < 300; n++) put(n, { metadataUri: `https://agents.example/${n}/card.json` });
    const accounts = createSqlRegistryAccountStore(store.executor, PROGRAM_ID as Address, { pageRows: 50 });
    try {
      const first = createAgentIndex({ ledger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts });
      await first.ready();
      await first.close();
      const [head] = await store.executor.query("SELECT chunks FROM registry_snapshots");
      expect(head?.["chunks"]).toBe(1);
      // Saved after the snapshot: a changed agent and a new one (as a pushed write would be).
      await accounts.save("agents", [
        { address: testAddress(9, 7), slot: 400_000_000n, data: padded(encodeAgentIdentity(agentIdentity(7, { metadataUri: "https://stale.example/7" })), 600) },
        { address: testAddress(9, 999), slot: 400_000_000n, data: padded(encodeAgentIdentity(agentIdentity(999)), 600) },
      ]);
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const slowLedger: Ledger = { ...ledger, getProgramAccounts: async (program, filters) => (await held, ledger.getProgramAccounts(program, filters)) };
      const reports: RefreshReport[] = [];
      const second = createAgentIndex({ ledger: slowLedger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts, onRefresh: (r) => reports.push(r) });
      await second.ready();
      expect(reports.filter((r) => r.kind === "agents").map((r) => [r.source, r.accounts])).toEqual([["store", 301]]);
      expect((await second.getAgent(agentIdentity(7).nftMint))?.identity.metadataUri).toBe("https://stale.example/7");
      expect(await second.getAgent(agentIdentity(999).nftMint)).not.toBeNull();
      // q at once (the catalog's lists may not be built yet) answers what a catalog built whole answers.
      const all = (await second.listAgents({ limit: 1_000 })).items;
      expect(all.length).toBe(301);
      const whole = buildAgentCatalog(all);
      for (const q of ["/12", "s://", "stale", "/7/", "zz", "1"]) {
        expect((await second.listAgents({ limit: 50, q })).items.map((r) => r.address)).toEqual(whole.page({ limit: 50, q }).items.map((r) => r.address));
      }
      release();
      for (let i = 0; i < 300 && (await second.getAgent(agentIdentity(999).nftMint)) !== null; i++) await Bun.sleep(10);
      expect(await second.getAgent(agentIdentity(999).nftMint)).toBeNull();
      expect((await second.getAgent(agentIdentity(7).nftMint))?.identity.metadataUri).toBe("https://agents.example/7/card.json");
      // The catch-up read found only what changed: the snapshot's fingerprints matched the rest.
      expect(reports.find((r) => r.kind === "agents" && r.source === "read")?.changed).toBe(2);
      await second.close();
    } finally {
      await store.close();
    }
  }, 60_000);

  test("a snapshot that cannot be read (store failing) falls back to the stored accounts", async () => {
    const store = await openStore({ inMemory: true });
    const ledger = createLocalLedger();
    for (let n = 0; n < 20; n++) ledger.setAccount(testAddress(9, n), { lamports: 5_000_000n, owner: PROGRAM_ID, data: padded(encodeAgentIdentity(agentIdentity(n)), 600) });
    const accounts = createSqlRegistryAccountStore(store.executor, PROGRAM_ID as Address);
    try {
      const first = createAgentIndex({ ledger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, store: accounts });
      await first.ready();
      await first.close();
      const broken: RegistryAccountStore = { ...accounts, loadSnapshot: async () => Promise.reject(new Error("connection reset")) };
      const held: Ledger = { ...ledger, getProgramAccounts: () => new Promise(() => {}) };
      const reports: RefreshReport[] = [];
      const second = createAgentIndex({ ledger: held, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, store: broken, onRefresh: (r) => reports.push(r) });
      await second.ready();
      expect((await second.listAgents({ limit: 100 })).items.length).toBe(20);
      expect(reports.filter((r) => r.kind === "agents").map((r) => [r.source, r.accounts])).toEqual([["store", 20]]);
      await second.close();
    } finally {
      await store.close();
    }
  }, 60_000);
});
