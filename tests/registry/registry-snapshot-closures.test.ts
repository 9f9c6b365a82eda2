/**
 * A restart from the snapshot of the built agent index (migration 15) drops the agents closed
 * after the snapshot was taken (their closures noted by the store, migration 16), before any read
 * of the ledger: on PGlite and on a real PostgreSQL server (skipped with a printed reason when
 * unreachable, required under CI=true).
 */
import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { systemClock } from "../../src/application/ports/clock.ts";
import type { Ledger } from "../../src/application/ports/ledger.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { encodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createLocalProgramFeed } from "../../src/infrastructure/ledger/local-program-feed.ts";
import { createAgentIndex, type RefreshReport } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlRegistryAccountStore } from "../../src/infrastructure/store/sql-registry-account-store.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";
import { agentIdentity, padded, testAddress } from "./support/registry-fixtures.ts";

/**
 * Snapshot, close two agents on the ledger (one opens again), restart with a ledger that never
 * answers: the closed one is not served, the reopened one is.
 */
async function closedAfterSnapshot(opened: OpenedStore, program: Address): Promise<void> {
  const ledger = createLocalLedger();
  const put = (n: number) => ledger.setAccount(testAddress(9, n), { lamports: 5_000_000n, owner: program, data: padded(encodeAgentIdentity(agentIdentity(n)), 600) });
  const close = (n: number) => ledger.setAccount(testAddress(9, n), { lamports: 0n, owner: program, data: new Uint8Array(0) });
  for (let n = 0; n < 40; n++) put(n);
  const accounts = createSqlRegistryAccountStore(opened.executor, program, { pageRows: 16 });
  const first = createAgentIndex({ ledger, clock: systemClock, programId: program, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts });
  await first.ready();
  const snapshots = async () => (await opened.executor.query("SELECT count(*)::int AS n FROM registry_snapshots WHERE program = $1", [program]))[0]?.["n"];
  for (let i = 0; i < 500 && (await snapshots()) !== 1; i++) await Bun.sleep(10);
  expect(await snapshots()).toBe(1);
  // A closure is found by a full read (a closed account no longer matches the feed's filters).
  close(3);
  close(5);
  await first.refresh();
  expect(await first.getAgent(agentIdentity(5).nftMint)).toBeNull();
  put(5);
  await first.caughtUp();
  expect(await first.getAgent(agentIdentity(3).nftMint)).toBeNull();
  await first.close();
  const held: Ledger = { ...ledger, getProgramAccounts: () => new Promise(() => {}) };
  const reports: RefreshReport[] = [];
  const second = createAgentIndex({ ledger: held, clock: systemClock, programId: program, ttlMs: 30_000, logger: silentLogger, store: accounts, onRefresh: (r) => reports.push(r) });
  await second.ready();
  expect(await second.getAgent(agentIdentity(3).nftMint)).toBeNull();
  expect(await second.getAgent(agentIdentity(5).nftMint)).not.toBeNull();
  const listed = (await second.listAgents({ limit: 100 })).items.map((r) => r.address);
  expect(listed).not.toContain(testAddress(9, 3));
  expect(listed.length).toBe(39);
  expect(reports.filter((r) => r.kind === "agents").map((r) => [r.source, r.accounts])).toEqual([["store", 39]]);
  await second.close();
}

describe("index restart after a closure (PGlite in memory)", () => {
  test("an agent closed after the snapshot is not served after a restart, before any read of the ledger", async () => {
    const store = await openStore({ inMemory: true });
    try {
      await closedAfterSnapshot(store, testAddress(8, 8));
    } finally {
      await store.close();
    }
  }, 60_000);
});

const gate = await postgresGate("tests/registry");
describe("index restart after a closure: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));
if (gate.run) {
  const database = useTestDatabase();
  describe("index restart after a closure (PostgreSQL, real server)", () => {
    test("an agent closed after the snapshot is not served after a restart, before any read of the ledger", async () => {
      const opened = await openStore({ databaseUrl: database().url, maxConnections: 4 });
      try {
        await closedAfterSnapshot(opened, testAddress(8, 9));
      } finally {
        await opened.close();
      }
    }, 60_000);
  });
}
