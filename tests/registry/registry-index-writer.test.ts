/**
 * One writer of the registry index among replicas sharing a real PostgreSQL database (a
 * session-level advisory lock), and a replica that takes the role over making the stored index
 * whole. Skipped with a printed reason when PostgreSQL is unreachable, required under CI=true.
 */
import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import postgres from "postgres";
import { systemClock } from "../../src/application/ports/clock.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import type { RegistryAccountStore, RegistryIndexWriterElection, StoredAccountRow } from "../../src/application/ports/registry-account-store.ts";
import { encodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createLocalProgramFeed } from "../../src/infrastructure/ledger/local-program-feed.ts";
import { createAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createAdvisoryLockWriterElection, REGISTRY_WRITER_LOCK_CLASS } from "../../src/infrastructure/store/registry-index-writer-election.ts";
import { createSqlRegistryAccountStore } from "../../src/infrastructure/store/sql-registry-account-store.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";
import { agentIdentity, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

const gate = await postgresGate("tests/registry");
describe("registry index writer election: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));

/** Counts the writes that reach the store through an election (saves and sweeps). */
function counted(election: RegistryIndexWriterElection) {
  const writes = { saved: 0, swept: 0 };
  const wrap = (store: RegistryAccountStore): RegistryAccountStore => ({
    ...store,
    save: async (kind, accounts) => {
      writes.saved += accounts.length;
      await store.save(kind, accounts);
    },
    sweep: async (kind, keep, slot) => {
      const swept = await store.sweep(kind, keep, slot);
      writes.swept += swept;
      return swept;
    },
  });
  const wrapped: RegistryIndexWriterElection = {
    acquire: async () => {
      const writer = await election.acquire();
      return writer && { ...writer, store: wrap(writer.store) };
    },
    release: () => election.release(),
  };
  return { election: wrapped, writes };
}

if (gate.run) {
  const database = useTestDatabase();
  const replicas: OpenedStore[] = [];
  const replica = async () => {
    const opened = await openStore({ databaseUrl: database().url, maxConnections: 4 });
    replicas.push(opened);
    return opened;
  };
  const closeAll = async () => {
    for (const opened of replicas.splice(0)) await opened.close();
  };

  describe("registry index writer election: PostgreSQL (real server)", () => {
    test("one replica holds the role; when its session is cut the other takes it over and the first is refused it; released, it passes back", async () => {
      try {
        const [a, b] = [await replica(), await replica()];
        const electA = createAdvisoryLockWriterElection(a.executor, PROGRAM_ID, { logger: silentLogger });
        const electB = createAdvisoryLockWriterElection(b.executor, PROGRAM_ID, { logger: silentLogger });
        const other = createAdvisoryLockWriterElection(b.executor, testAddress(8, 8), { logger: silentLogger });
        const first = await electA.acquire();
        expect(first?.elected).toBe(true);
        expect((await electA.acquire())?.elected).toBe(false);
        expect(await electB.acquire()).toBeNull();
        // One writer per program: another program's index has its own.
        expect((await other.acquire())?.elected).toBe(true);
        await first?.store.save("agents", [{ address: testAddress(9, 1), slot: 1n, data: Uint8Array.from([1]) }]);

        // The writer's connection dies (a network cut, a killed backend): PostgreSQL frees the lock.
        const admin = postgres(database().url, { max: 1, onnotice: () => {} });
        try {
          await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = ${REGISTRY_WRITER_LOCK_CLASS}::oid AND objid = (hashtext('${PROGRAM_ID}'))::oid`);
        } finally {
          await admin.end({ timeout: 1 });
        }
        expect((await electB.acquire())?.elected).toBe(true);
        expect(await electA.acquire()).toBeNull();
        // Giving the role up (shutdown) lets the other take it at its next try.
        await electB.release();
        expect((await electA.acquire())?.elected).toBe(true);
        await electA.release();
        await other.release();
      } finally {
        await closeAll();
      }
    }, 30_000);

    test("two indexes over one ledger: only the elected one writes; the one that takes over makes the stored index whole", async () => {
      try {
        const ledger = createLocalLedger();
        const put = (n: number) => ledger.setAccount(testAddress(9, n), { lamports: 5_000_000n, owner: PROGRAM_ID, data: padded(encodeAgentIdentity(agentIdentity(n)), 600) });
        for (let n = 0; n < 30; n++) put(n);
        const [a, b] = [await replica(), await replica()];
        const index = (opened: OpenedStore, election: RegistryIndexWriterElection) =>
          createAgentIndex({ ledger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: createSqlRegistryAccountStore(opened.executor, PROGRAM_ID as Address), election });
        const A = counted(createAdvisoryLockWriterElection(a.executor, PROGRAM_ID, { logger: silentLogger }));
        const B = counted(createAdvisoryLockWriterElection(b.executor, PROGRAM_ID, { logger: silentLogger }));
        const first = index(a, A.election);
        await first.ready();
        const second = index(b, B.election);
        await second.ready();
        await first.refresh();
        await second.refresh();
        put(30);
        await first.caughtUp();
        await second.caughtUp();
        await first.close();
        expect(A.writes.saved).toBeGreaterThanOrEqual(31);
        expect(B.writes.saved).toBe(0);

        // What the first writer never wrote: an account that left the ledger while only the second
        // replica followed it, and a row the store holds that the ledger never had.
        const store = createSqlRegistryAccountStore(a.executor, PROGRAM_ID as Address);
        await store.save("agents", [{ address: testAddress(9, 77), slot: 1n, data: encodeAgentIdentity(agentIdentity(77)) }]);
        ledger.setAccount(testAddress(9, 3), { lamports: 0n, owner: PROGRAM_ID, data: new Uint8Array(0) });
        await second.refresh();
        expect(await second.getAgent(agentIdentity(3).nftMint)).toBeNull();

        // The second replica's next write finds the role free: it takes it and writes its reads whole.
        put(31);
        await second.caughtUp();
        for (let i = 0; i < 300 && B.writes.swept < 2; i++) await Bun.sleep(20);
        const rows: StoredAccountRow[] = [];
        await store.load("agents", async (page) => void rows.push(...page));
        const stored = new Set(rows.map((r) => r.address as string));
        expect(stored.has(testAddress(9, 77))).toBe(false);
        expect(stored.has(testAddress(9, 3))).toBe(false);
        expect(stored.has(testAddress(9, 31))).toBe(true);
        expect(stored.size).toBe(31);
        expect(B.writes.saved).toBeGreaterThanOrEqual(31);
        await second.close();
      } finally {
        await closeAll();
      }
    }, 60_000);
  });
}
