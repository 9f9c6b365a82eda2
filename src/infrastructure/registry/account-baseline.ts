import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { StoredAccount } from "../../application/ports/registry-account-store.ts";
import type { DecodeResult } from "../../domain/registry/decode-result.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import { createKnownStates } from "./known-states.ts";
import type { ProgramAccountData } from "./rpc-program-account-reader.ts";

export type { StoredAccount };

/** A pushed write of one account (programSubscribe), or an account read back from the store. */
export type AccountWrite = Readonly<{ address: Address; owner: Address; lamports: bigint; data: Uint8Array; slot: bigint }>;

/**
 * What one step changed. `added`: records that entered (new accounts, changed accounts' new
 * records); `removed`: records that left (gone accounts, changed accounts' old records). `stored`:
 * what to persist for each account that changed. `accounts`: how many accounts the step looked at.
 */
export type BaselineChanges<R> = Readonly<{ added: R[]; removed: R[]; skipped: Address[]; stored: StoredAccount[]; accounts: number }>;

/**
 * The last state of an account: its decoded record, how many bytes its fields took and a 64-bit
 * fingerprint of them (two 32-bit hashes), the slot it is from (columns in known-states.ts). A
 * fingerprint instead of the bytes: at 100,000 agents the kept bytes were ~40 MB of heap (a typed
 * array each), which the collector walked at every full collection.
 */
/**
 * The decoded accounts of one kind, by address, kept between full reads and pushed writes. An
 * account whose bytes did not change keeps its record (same object): later stages skip it, and a
 * full read costs a fingerprint per account instead of a Borsh decode. Only the bytes the fields
 * took are compared, so the Anchor padding after them is no change.
 *
 * Every step is sliced work (sliced-work.ts) and must not overlap another: the index runs them one
 * at a time per kind.
 */
export type AccountBaseline<R> = Readonly<{
  size(): number;
  /** Whether the account is known (a live account of this kind). */
  has(address: Address): boolean;
  /** Every record, in slices (a spread of 100,000 held the event loop for ~35 ms). */
  records(): SlicedWork<R[]>;
  /** Marks the moment a full read starts: what `apply` changes after it is newer than the read. */
  mark(): number;
  /**
   * A full read that started at `since` (a `mark()`), at least as recent as `slot`: accounts missing
   * from it are gone, and it replaces every state, except those applied after it started. `whole`:
   * `stored` also holds the accounts that did not change (a new writer makes the store whole).
   */
  reconcile(accounts: readonly ProgramAccountData[], slot: bigint, since: number, whole?: boolean): SlicedWork<BaselineChanges<R>>;
  /** Pushed writes; one older than what is known (an earlier slot) changes nothing. */
  apply(writes: readonly AccountWrite[]): SlicedWork<BaselineChanges<R>>;
  /** What is known of an account (a snapshot stores it), or null. */
  stateOf(address: Address): KnownAccount<R> | null;
  /**
   * Takes an account's state as it was known before (a snapshot): no decode. A fingerprint of 0/0
   * over 0 bytes never matches, so the next read of that account decodes it again.
   */
  adopt(address: Address, state: KnownAccount<R>): void;
  /** Room for `count` accounts before they are adopted (a snapshot's). */
  reserve(count: number): void;
}>;

/** An account's known state: its record, the bytes its fields took and their fingerprint, its slot. */
export type KnownAccount<R> = Readonly<{ record: R; fieldBytes: number; h1: number; h2: number; slot: number }>;

export function createAccountBaseline<T, R>(
  programId: Address,
  decode: (data: ReadonlyUint8Array) => DecodeResult<T>,
  toRecord: (address: Address, value: T) => R,
): AccountBaseline<R> {
  return createRecordBaseline(programId, (address, data) => {
    const result = decode(data);
    return result.ok ? { ok: true, value: toRecord(address, result.value), size: result.size } : result;
  });
}

/**
 * The same, for records decoded straight from an account's bytes (the agents: decodeIndexedAgent,
 * which builds no intermediate decoded value).
 */
export function createRecordBaseline<R>(programId: Address, decodeRecord: (address: Address, data: ReadonlyUint8Array) => DecodeResult<R>): AccountBaseline<R> {
  const known = createKnownStates<R>();
  let generation = 0;
  /** Counts applied states; a full read started at `since` loses to states applied after it. */
  let applies = 0;

  function emptyChanges(accounts: number): { added: R[]; removed: R[]; skipped: Address[]; stored: StoredAccount[]; accounts: number } {
    return { added: [], removed: [], skipped: [], stored: [], accounts };
  }

  /** Decodes `data` for `address` and replaces what was known; false when it does not decode. */
  /** `before`: the account's row when it was known, else -1. */
  function take(address: Address, data: Uint8Array, slot: number, before: number, out: ReturnType<typeof emptyChanges>): boolean {
    const result = decodeRecord(address, data);
    if (!result.ok) return false;
    const record = result.value;
    const previous = before >= 0 ? known.record(before) : undefined;
    known.set(address, { size: result.size, h1: hash1(data, result.size), h2: hash2(data, result.size), record, slot, seen: generation, applied: ++applies });
    if (previous !== undefined) out.removed.push(previous);
    out.added.push(record);
    // A copy for the store: the read's buffer (shared by all its accounts) can then be dropped.
    out.stored.push({ address, slot: BigInt(slot), data: data.slice(0, result.size) });
    return true;
  }

  function forget(address: Address, before: number, slot: number, out: ReturnType<typeof emptyChanges>): void {
    out.removed.push(known.record(before));
    known.delete(address);
    out.stored.push({ address, slot: BigInt(slot), data: null });
  }

  function* reconcile(accounts: readonly ProgramAccountData[], readSlot: bigint, since: number, whole = false): SlicedWork<BaselineChanges<R>> {
    const current = ++generation;
    const slot = Number(readSlot);
    const out = emptyChanges(accounts.length);
    for (let i = 0; i < accounts.length; i++) {
      // A decode is ~10-25 µs: 32 of them stay well inside a slice.
      if ((i & 31) === 31) yield;
      const account = accounts[i] as ProgramAccountData;
      // SECURITY: only the registry program can write its accounts; anything else is a forgery
      // (or a misbehaving RPC) and must not enter the read model.
      if (account.owner !== programId) {
        out.skipped.push(account.address);
        continue;
      }
      const before = known.rowOf(account.address);
      if (before >= 0 && (known.applied(before) > since || same(before, account.data))) {
        // Unchanged, or pushed after this read began (that state is at least as new as the read's).
        known.setSeen(before, current);
        if (known.slot(before) < slot) known.setSlot(before, slot);
        // The read's bytes of an account pushed after it began may be older than the pushed state:
        // only the unchanged ones are written whole (the pushed one is queued on its own).
        if (whole && known.applied(before) <= since) out.stored.push({ address: account.address, slot: BigInt(known.slot(before)), data: account.data.slice(0, known.fieldBytes(before)) });
        continue;
      }
      if (!take(account.address, account.data, slot, before, out)) out.skipped.push(account.address);
    }
    // Accounts the read did not return (or returned undecodable) are gone, unless pushed after the
    // read began.
    let n = 0;
    const gone: [Address, number][] = [];
    for (const row of known.rows()) {
      if (known.seen(row) !== current && known.applied(row) <= since) gone.push([known.address(row), row]);
      if ((++n & 1023) === 0) yield;
    }
    // Forgotten after the walk: a row freed during it could be handed out again.
    for (const [address, row] of gone) forget(address, row, slot, out);
    return out;
  }

  function* apply(writes: readonly AccountWrite[]): SlicedWork<BaselineChanges<R>> {
    const out = emptyChanges(writes.length);
    for (let i = 0; i < writes.length; i++) {
      if ((i & 31) === 31) yield;
      const write = writes[i] as AccountWrite;
      const slot = Number(write.slot);
      const before = known.rowOf(write.address);
      if (before >= 0 && slot < known.slot(before)) continue;
      // SECURITY: as in a full read; and an account without lamports no longer exists.
      const live = write.owner === programId && write.lamports > 0n;
      if (before >= 0 && live && same(before, write.data)) {
        known.setSlot(before, slot);
        known.setApplied(before, ++applies);
        continue;
      }
      if (!live || !take(write.address, write.data, slot, before, out)) {
        if (write.owner !== programId || live) out.skipped.push(write.address);
        if (before >= 0) forget(write.address, before, slot, out);
      }
    }
    return out;
  }

  /** Whether `data` holds the same bytes where the known state's fields were (what follows is padding). */
  function same(row: number, data: Uint8Array): boolean {
    const size = known.fieldBytes(row);
    return data.length >= size && hash1(data, size) === known.h1(row) && hash2(data, size) === known.h2(row);
  }

  return Object.freeze({
    size: () => known.size(),
    has: (address: Address) => known.rowOf(address) >= 0,
    mark: () => applies,
    *records() {
      const out: R[] = [];
      for (const row of known.rows()) {
        out.push(known.record(row));
        if ((out.length & 4095) === 0) yield;
      }
      return out;
    },
    reconcile,
    apply,
    stateOf(address: Address): KnownAccount<R> | null {
      const row = known.rowOf(address);
      return row < 0 ? null : { record: known.record(row), fieldBytes: known.fieldBytes(row), h1: known.h1(row), h2: known.h2(row), slot: known.slot(row) };
    },
    reserve: (count: number) => known.reserve(count),
    adopt(address: Address, state: KnownAccount<R>): void {
      known.set(address, { size: state.fieldBytes, h1: state.h1, h2: state.h2, record: state.record, slot: state.slot, seen: generation, applied: ++applies });
    },
  });
}

/**
 * Two independent 32-bit hashes of `data[0, size)`, read four bytes at a time: FNV-1a-style and
 * murmur3-style mixing. Together a 64-bit fingerprint: a change that keeps both is ~1 in 2^64 by
 * chance. One could be crafted (they are not cryptographic), but only by the account's own writer
 * (only the program writes its accounts, on its owner's instructions), and all it buys is the index
 * keeping that account's previous state until its next write or an exact change.
 */
function hash1(data: Uint8Array, size: number): number {
  let h = 0x811c9dc5 ^ size;
  let i = 0;
  for (; i + 4 <= size; i += 4) h = Math.imul(h ^ ((data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24)), 0x01000193);
  for (; i < size; i++) h = Math.imul(h ^ (data[i] as number), 0x01000193);
  return h >>> 0;
}

function hash2(data: Uint8Array, size: number): number {
  let h = 0x9747b28c ^ size;
  let i = 0;
  for (; i + 4 <= size; i += 4) {
    let k = (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  for (; i < size; i++) h = Math.imul(h ^ (data[i] as number), 0x5bd1e995);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
