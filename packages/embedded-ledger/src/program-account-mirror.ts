import { setImmediate } from "node:timers";
import type { Address } from "@solana/kit";
import type { AccountSnapshot, ProgramAccountFilter } from "./ports.ts";
import { matchesFilters } from "./account-reads.ts";
import { base58Bytes, base58Text } from "./base58.ts";
import type { RawLiteSvm } from "./litesvm-raw.ts";

/**
 * Owners of the accounts litesvm creates by itself (sysvars, builtins, loaders' programs, feature
 * gates, the airdrop wallet) and that change without a write through this ledger (sysvars, every
 * slot). Their listings come from litesvm; every other program's accounts were all written here.
 */
const NATIVE_OWNERS: ReadonlySet<string> = new Set([
  "11111111111111111111111111111111",
  "Sysvar1111111111111111111111111111111111111",
  "NativeLoader1111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
  "Feature111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "Stake11111111111111111111111111111111111111",
  "StakeConfig11111111111111111111111111111111",
  "Vote111111111111111111111111111111111111111",
]);

function sameState(before: Stored | undefined, after: Stored): boolean {
  if (!before || before.owner !== after.owner || before.lamports !== after.lamports || before.data.length !== after.data.length) return false;
  for (let i = 0; i < after.data.length; i++) if (before.data[i] !== after.data[i]) return false;
  return true;
}

/** Work between two yields to the event loop while filtering a large program. */
const SLICE_MS = 4;
/** Accounts between two looks at the clock: 1,024 copies or filter checks could pass a collection's pause. */
const CHECK_EVERY = 128;

/** Gives the event loop back; resolves after. */
export type YieldToEventLoop = () => Promise<void>;

const yieldBySetImmediate: YieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const COPY_BLOCK_BYTES = 4 * 1024 * 1024;

type Stored = Readonly<{ address: Address; owner: Address; lamports: bigint; data: Uint8Array; executable: boolean }>;

/** What setAccount left in an account (lamports 0: the account does not exist). */
export type WrittenAccount = Readonly<{ owner: Address; lamports: bigint; data: Uint8Array; executable: boolean }>;

/**
 * getProgramAccounts of the embedded ledger, answered from JS-side copies of the accounts written
 * through this ledger instead of litesvm's native call.
 *
 * Why: the native call hands every account of the program to JS as napi objects (the address, an
 * `Account`, a data buffer), and under Bun their memory is never given back: measured about 1 KB
 * per account per call (each owner-filtered read at 10,000 agents grew RSS by ~30 MB, a refresh at
 * 100,000 agents by ~0.3-0.5 GB). litesvm's wrapper also base58-encodes two addresses per account
 * through BigInt before any filter runs (~250 ms at 10,000 accounts).
 *
 * How it stays exact: a program's accounts can only come from writes through this ledger, unless
 * litesvm created them at boot (NATIVE_OWNERS, listed natively). `setAccount` hands over what it
 * wrote; a landed transaction names its static account keys (nothing else can change), and those
 * are read again natively, once each, before the next listing. A transaction that loads accounts
 * from lookup tables could change accounts nobody named, so from then on every listing is native.
 * Filters run on the copy before anything is copied out, in slices that yield to the event loop.
 */
export type ProgramAccountMirror = Readonly<{
  read(program: Address, filters: readonly ProgramAccountFilter[]): Promise<readonly AccountSnapshot[]>;
  /**
   * Told of each program-owned account as it is written (setAccount: every write; a landed
   * transaction: each named account whose owner, lamports or bytes changed). Setting a listener
   * makes transactions' accounts be read at once instead of at the next listing.
   */
  onWrite(listener: ((account: AccountSnapshot) => void) | null): void;
  /** setAccount wrote this state (the bytes are copied). */
  written(address: Address, account: WrittenAccount): void;
  /** A transaction landed; `keys` are its static account keys, null when it loaded more from lookup tables. */
  transactionLanded(keys: readonly Uint8Array[] | null): void;
}>;

/**
 * `yieldNow`: how a listing gives the event loop back (the host's queue of turns, when it shares one
 * among its background work; setImmediate by default).
 */
export function createProgramAccountMirror(raw: RawLiteSvm, yieldNow: YieldToEventLoop = yieldBySetImmediate): ProgramAccountMirror {
  /** Accounts of programs other than NATIVE_OWNERS, by owner, as last written or read. */
  const byOwner = new Map<Address, Map<Address, Stored>>();
  const ownerOf = new Map<Address, Address>();
  /** Each owner's accounts as a list for reads to walk; dropped when one of them changes. */
  const lists = new Map<Address, readonly Stored[]>();
  const touched = new Set<Address>();
  let complete = true;
  let listener: ((account: AccountSnapshot) => void) | null = null;
  /** Counts changes to the stored accounts: a list built across yields is cached only if none came. */
  let changes = 0;

  function remove(address: Address): void {
    const owner = ownerOf.get(address);
    if (owner === undefined) return;
    changes++;
    byOwner.get(owner)?.delete(address);
    ownerOf.delete(address);
    lists.delete(owner);
  }

  function store(account: Stored): void {
    const owner = ownerOf.get(account.address);
    const live = account.lamports !== 0n && !NATIVE_OWNERS.has(account.owner);
    if (owner !== undefined && (owner !== account.owner || !live)) remove(account.address);
    changes++;
    if (!live) return;
    let accounts = byOwner.get(account.owner);
    if (!accounts) byOwner.set(account.owner, (accounts = new Map()));
    // The same key keeps its place in the Map: a listing walking it meanwhile sees the account once.
    accounts.set(account.address, account);
    ownerOf.set(account.address, account.owner);
    lists.delete(account.owner);
  }

  /** Reads again, natively, what transactions wrote since the last listing. */
  function catchUp(): void {
    for (const address of touched) {
      const account = raw.getAccount(base58Bytes(address));
      if (!account) {
        remove(address);
        continue;
      }
      const next: Stored = Object.freeze({ address, owner: base58Text(account.owner()) as Address, lamports: account.lamports(), data: account.data(), executable: account.executable() });
      const before = storedAt(address);
      store(next);
      if (listener && next.lamports > 0n && !sameState(before, next)) listener(next);
    }
    touched.clear();
  }

  function storedAt(address: Address): Stored | undefined {
    const owner = ownerOf.get(address);
    return owner === undefined ? undefined : byOwner.get(owner)?.get(address);
  }

  function nativeList(program: Address): readonly Stored[] {
    return raw.getProgramAccounts(base58Bytes(program)).map((item) => {
      const account = item.account();
      return { address: base58Text(item.address) as Address, owner: program, lamports: account.lamports(), data: account.data(), executable: account.executable() };
    });
  }

  /** The program's accounts as a list, built in slices when it has to be built (a spread of 100,000 took ~10-35 ms). */
  async function listOf(program: Address): Promise<readonly Stored[]> {
    if (!complete || NATIVE_OWNERS.has(program)) return nativeList(program);
    const cached = lists.get(program);
    if (cached) return cached;
    const list: Stored[] = [];
    const accounts = byOwner.get(program);
    const at = changes;
    if (accounts) {
      let sliceStart = performance.now();
      // Walked across yields: a write meanwhile may or may not be in this list (as with a node,
      // whose answer is no atomic snapshot either); such a list is not cached.
      for (const account of accounts.values()) {
        list.push(account);
        if (list.length % CHECK_EVERY === 0 && performance.now() - sliceStart > SLICE_MS) {
          await yieldNow();
          sliceStart = performance.now();
        }
      }
    }
    // A write during the yields makes this list the read's moment, not the ledger's: not cached.
    if (changes === at) lists.set(program, list);
    return list;
  }

  async function read(program: Address, filters: readonly ProgramAccountFilter[]): Promise<readonly AccountSnapshot[]> {
    // The first slice waits for a turn too: three kinds' listings are often asked for at once.
    await yieldNow();
    catchUp();
    // Stored entries are replaced on write, never changed: the list taken stays as it is even when
    // writes land during the yields below.
    const entries = await listOf(program);
    const matching: Stored[] = [];
    let sliceStart = performance.now();
    for (let i = 0; i < entries.length; i++) {
      const account = entries[i] as Stored;
      if (matchesFilters(account.data, filters)) matching.push(account);
      if (i % CHECK_EVERY === CHECK_EVERY - 1 && performance.now() - sliceStart > SLICE_MS) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
    // The copies handed out share blocks of up to 4 MB: a read of 100,000 accounts allocates a few
    // blocks instead of 100,000 small arrays, and no single 58 MB one. A caller that keeps some
    // bytes long should copy them.
    const out: AccountSnapshot[] = [];
    let block = new Uint8Array(0);
    let offset = 0;
    for (let i = 0; i < matching.length; i++) {
      const account = matching[i] as Stored;
      if (offset + account.data.length > block.length) {
        block = new Uint8Array(Math.max(COPY_BLOCK_BYTES, account.data.length));
        offset = 0;
      }
      block.set(account.data, offset);
      out.push(Object.freeze({ address: account.address, owner: program, lamports: account.lamports, data: block.subarray(offset, offset + account.data.length), executable: account.executable }));
      offset += account.data.length;
      if (i % CHECK_EVERY === CHECK_EVERY - 1 && performance.now() - sliceStart > SLICE_MS) {
        await yieldNow();
        sliceStart = performance.now();
      }
    }
    return out;
  }

  return Object.freeze({
    read,
    onWrite(next: ((account: AccountSnapshot) => void) | null) {
      listener = next;
    },
    written(address: Address, account: WrittenAccount) {
      const copy: Stored = Object.freeze({ address, ...account, data: account.data.slice() });
      if (complete) {
        touched.delete(address);
        store(copy);
      }
      // A real node notifies every write of a live account, changed or not.
      if (listener && copy.lamports > 0n) listener(copy);
    },
    transactionLanded(keys: readonly Uint8Array[] | null) {
      if (keys === null) {
        complete = false;
        byOwner.clear();
        ownerOf.clear();
        lists.clear();
        touched.clear();
        return;
      }
      if (complete) for (const key of keys) touched.add(base58Text(key) as Address);
      if (listener && complete) catchUp();
    },
  });
}
