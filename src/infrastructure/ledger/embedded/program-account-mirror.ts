import { setImmediate } from "node:timers";
import type { Address } from "@solana/kit";
import type { AccountSnapshot, ProgramAccountFilter } from "../../../application/ports/ledger.ts";
import { matchesFilters } from "./account-reads.ts";
import { base58Bytes, base58Text } from "./base58.ts";
import type { RawLiteSvm } from "./litesvm-raw.ts";

/** Sysvars change with every slot without a write through this ledger, so their program is never copied. */
const SYSVAR_PROGRAM = "Sysvar1111111111111111111111111111111111111";
/** Past this many written accounts since the last read, reading the program again in full is cheaper. */
const MAX_TOUCHED = 50_000;
/** Work between two yields to the event loop while filtering a large program. */
const SLICE_MS = 4;

type Stored = Readonly<{ lamports: bigint; data: Uint8Array; executable: boolean }>;

/**
 * getProgramAccounts of the embedded ledger, answered from a JS-side copy of each program's
 * accounts instead of litesvm's native call.
 *
 * Why: the native call hands every account of the program to JS as napi objects (the address, an
 * `Account`, a data buffer), and under Bun their native memory is never given back (measured: about
 * 1 KB per account per call, so each owner-filtered read at 10,000 agents grew RSS by ~30 MB, and a
 * refresh at 100,000 agents by ~0.3 GB). litesvm's wrapper also base58-encodes two addresses per
 * account through BigInt before any filter runs (~250 ms at 10,000 accounts).
 *
 * How it stays exact: the first read of a program copies its accounts once. Every write through
 * this ledger names what it wrote: `setAccount` its address, a landed transaction its static
 * account keys (only those can change; a transaction that loads accounts from a lookup table drops
 * every copy). Before the next read those accounts are read again natively, one each, and moved
 * in or out of each copy by their owner. Filters then run on the copy (memcmp before anything is
 * copied), and only matching accounts are copied out, in slices that yield to the event loop.
 */
export type ProgramAccountMirror = Readonly<{
  read(program: Address, filters: readonly ProgramAccountFilter[]): Promise<readonly AccountSnapshot[]>;
  /** An account was written outside a transaction (cheat codes). */
  written(address: Address): void;
  /** A transaction landed; `keys` are its static account keys, null when it loaded more from lookup tables. */
  transactionLanded(keys: readonly Uint8Array[] | null): void;
}>;

export function createProgramAccountMirror(raw: RawLiteSvm): ProgramAccountMirror {
  const copies = new Map<Address, Map<Address, Stored>>();
  const touched = new Set<Address>();

  function forgetAll(): void {
    copies.clear();
    touched.clear();
  }

  function touch(address: Address): void {
    if (copies.size === 0) return;
    touched.add(address);
    if (touched.size > MAX_TOUCHED) forgetAll();
  }

  /** Brings every copy up to date with the accounts written since the last read. */
  function catchUp(): void {
    for (const address of touched) {
      const account = raw.getAccount(base58Bytes(address));
      const owner = account ? (base58Text(account.owner()) as Address) : null;
      for (const [program, accounts] of copies) {
        if (account && owner === program) accounts.set(address, stored(account));
        else accounts.delete(address);
      }
    }
    touched.clear();
  }

  function copyOf(program: Address): Map<Address, Stored> {
    const known = copies.get(program);
    if (known) return known;
    const accounts = new Map<Address, Stored>();
    for (const item of raw.getProgramAccounts(base58Bytes(program))) {
      accounts.set(base58Text(item.address) as Address, stored(item.account()));
    }
    if (program !== SYSVAR_PROGRAM) copies.set(program, accounts);
    return accounts;
  }

  async function read(program: Address, filters: readonly ProgramAccountFilter[]): Promise<readonly AccountSnapshot[]> {
    catchUp();
    // Stored entries are replaced on write, never changed, so this list is one moment's state
    // even when writes land during the yields below.
    const entries = [...copyOf(program)];
    const out: AccountSnapshot[] = [];
    let sliceStart = performance.now();
    for (let i = 0; i < entries.length; i++) {
      const [address, account] = entries[i] as [Address, Stored];
      if (matchesFilters(account.data, filters)) {
        out.push(Object.freeze({ address, owner: program, lamports: account.lamports, data: account.data.slice(), executable: account.executable }));
      }
      if ((i & 1023) === 1023 && performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return out;
  }

  return Object.freeze({
    read,
    written: touch,
    transactionLanded(keys: readonly Uint8Array[] | null) {
      if (copies.size === 0) return;
      if (keys === null) return forgetAll();
      for (const key of keys) touch(base58Text(key) as Address);
    },
  });
}

function stored(account: Readonly<{ lamports(): bigint; data(): Uint8Array; executable(): boolean }>): Stored {
  return Object.freeze({ lamports: account.lamports(), data: account.data(), executable: account.executable() });
}
