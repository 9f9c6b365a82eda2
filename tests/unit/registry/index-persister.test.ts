import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import type { RegistryAccountStore, RegistryIndexWriterElection, StoredAccount } from "../../../src/application/ports/registry-account-store.ts";
import { createIndexPersister } from "../../../src/application/registry/index-persister.ts";
import type { Schedule } from "../../../src/application/registry/refreshing-snapshot.ts";
import { testAddress } from "../../registry/support/registry-fixtures.ts";

/** A store that records what reaches it, in order. */
function recordingStore() {
  const calls: string[] = [];
  const saved: StoredAccount[] = [];
  const store: RegistryAccountStore = {
    load: async () => null,
    save: async (kind, accounts) => {
      calls.push(`save ${kind} ${accounts.length}`);
      saved.push(...accounts);
    },
    markComplete: async (kind, at) => void calls.push(`complete ${kind} ${at}`),
    sweep: async (kind, keep, slot) => {
      const gone = [testAddress(9, 1), testAddress(9, 2), testAddress(9, 3)].filter((a) => !keep(a));
      calls.push(`sweep ${kind} ${slot} ${gone.length}`);
      return gone.length;
    },
  };
  return { store, calls, saved };
}

/** An election the test flips by hand. */
function manualElection(store: RegistryAccountStore) {
  const state = { writer: false, elected: false, released: false };
  const election: RegistryIndexWriterElection = {
    acquire: async () => {
      if (!state.writer) return null;
      const elected = state.elected;
      state.elected = false;
      return { store, elected };
    },
    release: async () => void (state.released = true),
  };
  return { election, state };
}

const never: Schedule = () => () => {};
const account = (n: number, slot = 1n): StoredAccount => ({ address: testAddress(9, n) as Address, slot, data: Uint8Array.from([n]) });

describe("index persister: one writer among the replicas sharing the store", () => {
  test("a replica that is not the writer writes nothing and drops what it queued", async () => {
    const { store, calls } = recordingStore();
    const { election, state } = manualElection(store);
    let elected = 0;
    const persister = createIndexPersister({ store, election, onElected: () => elected++, logger: silentLogger, schedule: never });
    persister.persist("agents", [account(1), account(2)], 1_000);
    await persister.flush();
    expect(calls).toEqual([]);
    // Becoming the writer later: what was dropped is not written (the whole read it asks for is).
    state.writer = true;
    state.elected = true;
    persister.persist("agents", [account(3)], null);
    await persister.flush();
    expect(elected).toBe(1);
    expect(calls).toEqual(["save agents 1"]);
    await persister.stop();
    expect(state.released).toBe(true);
  });

  test("a read written whole is saved, then the store swept of what the index does not know, then marked complete", async () => {
    const { store, calls, saved } = recordingStore();
    const { election, state } = manualElection(store);
    state.writer = true;
    const persister = createIndexPersister({ store, election, logger: silentLogger, schedule: never, batchSize: 2 });
    const known = new Set<string>([testAddress(9, 1), testAddress(9, 3)]);
    persister.persist("agents", [account(1, 7n), account(3, 7n), { address: testAddress(9, 4) as Address, slot: 7n, data: null }], 5_000, { keep: (a) => known.has(a), slot: 7n });
    await persister.flush();
    expect(calls).toEqual(["save agents 2", "save agents 1", "sweep agents 7 1", "complete agents 5000"]);
    expect(saved.map((a) => a.address)).toEqual([1, 3, 4].map((n) => testAddress(9, n)));
    await persister.flush();
    expect(calls.length).toBe(4);
  });

  test("without an election every replica writes (one process, or PGlite)", async () => {
    const { store, calls } = recordingStore();
    const persister = createIndexPersister({ store, logger: silentLogger, schedule: never });
    persister.persist("feedback", [account(1)], 9);
    await persister.flush();
    expect(calls).toEqual(["save feedback 1", "complete feedback 9"]);
  });
});
