import type { Address } from "@solana/kit";
import type { AccountSnapshot, Ledger, ProgramAccountFilter } from "../../../src/application/ports/ledger.ts";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { fakeLedger } from "../../../fixtures/fake-ledger.ts";

/**
 * Hand-written in-memory Ledger (mock): only account reads are implemented. It records every
 * getProgramAccounts call, can fail on demand, and can hold calls at a gate to make a refresh
 * observably "in flight".
 */
export type FakeLedger = Ledger &
  Readonly<{
    put(address: Address, data: Uint8Array, owner?: Address): void;
    remove(address: Address): void;
    calls: { program: Address; filters: readonly ProgramAccountFilter[] }[];
    failWith(error: Error | null): void;
    /** Acts like a broken RPC that also returns accounts owned by other programs. */
    misbehave(): void;
    /** Holds every following getProgramAccounts until the returned release function runs. */
    hold(): () => void;
  }>;

export function createFakeLedger(program: Address): FakeLedger {
  const accounts = new Map<Address, AccountSnapshot>();
  const calls: { program: Address; filters: readonly ProgramAccountFilter[] }[] = [];
  let failure: Error | null = null;
  let gate: Promise<void> | null = null;
  let leakForeign = false;

  return Object.freeze({
    ...fakeLedger({}, "the registry fake", (message) => new LedgerError("unavailable", message)),
    calls,
    put(address: Address, data: Uint8Array, owner: Address = program) {
      accounts.set(address, { address, owner, lamports: 1_000_000n, data, executable: false });
    },
    remove(address: Address) {
      accounts.delete(address);
    },
    misbehave() {
      leakForeign = true;
    },
    failWith(error: Error | null) {
      failure = error;
    },
    hold() {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = null;
          resolve();
        };
      });
      return release;
    },
    async getProgramAccounts(owner: Address, filters: readonly ProgramAccountFilter[] = []) {
      calls.push({ program: owner, filters });
      if (gate) await gate;
      if (failure) throw failure;
      return [...accounts.values()].filter((a) => leakForeign || a.owner === owner).filter((a) => filters.every((f) => matches(a.data, f)));
    },
    getAccount: async (address: Address) => accounts.get(address) ?? null,
    getMultipleAccounts: async (addresses: readonly Address[]) => addresses.map((a) => accounts.get(a) ?? null),
    ping: async () => {},
  });
}

function matches(data: Uint8Array, filter: ProgramAccountFilter): boolean {
  if ("dataSize" in filter) return data.length === filter.dataSize;
  const { offset, bytes } = filter.memcmp;
  if (offset + bytes.length > data.length) return false;
  return bytes.every((b, i) => data[offset + i] === b);
}
