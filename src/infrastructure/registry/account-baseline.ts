import { Buffer } from "node:buffer";
import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { StoredAccount } from "../../application/ports/registry-account-store.ts";
import type { DecodeResult } from "../../domain/registry/decode-result.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
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

/** The last state of an account: its decoded record, the bytes its fields took, the slot it is from. */
type Known<R> = { readonly data: Uint8Array; readonly record: R; slot: bigint; seen: number };

/**
 * The decoded accounts of one kind, by address, kept between full reads and pushed writes. An
 * account whose bytes did not change keeps its record (same object): later stages skip it, and a
 * full read costs a byte comparison per account instead of a Borsh decode. Only the bytes the fields
 * took are compared, so the Anchor padding after them is no change.
 *
 * Every step is sliced work (sliced-work.ts) and must not overlap another: the index runs them one
 * at a time per kind.
 */
export type AccountBaseline<R> = Readonly<{
  size(): number;
  /** Every record, in slices (a spread of 100,000 held the event loop for ~35 ms). */
  records(): SlicedWork<R[]>;
  /** A full read at (at least) `slot`: accounts missing from it are gone, unless written at a later slot. */
  reconcile(accounts: readonly ProgramAccountData[], slot: bigint): SlicedWork<BaselineChanges<R>>;
  /** Pushed writes; one older than what is known (an earlier slot) changes nothing. */
  apply(writes: readonly AccountWrite[]): SlicedWork<BaselineChanges<R>>;
}>;

export function createAccountBaseline<T, R>(
  programId: Address,
  decode: (data: ReadonlyUint8Array) => DecodeResult<T>,
  toRecord: (address: Address, value: T) => R,
): AccountBaseline<R> {
  const known = new Map<Address, Known<R>>();
  let generation = 0;

  function emptyChanges(accounts: number): { added: R[]; removed: R[]; skipped: Address[]; stored: StoredAccount[]; accounts: number } {
    return { added: [], removed: [], skipped: [], stored: [], accounts };
  }

  /** Decodes `data` for `address` and replaces what was known; false when it does not decode. */
  function take(address: Address, data: Uint8Array, slot: bigint, before: Known<R> | undefined, out: ReturnType<typeof emptyChanges>): boolean {
    const result = decode(data);
    if (!result.ok) return false;
    const record = toRecord(address, result.value);
    // A copy: the read's buffer (shared by all its accounts) can then be dropped.
    const kept = data.slice(0, result.size);
    known.set(address, { data: kept, record, slot, seen: generation });
    if (before) out.removed.push(before.record);
    out.added.push(record);
    out.stored.push({ address, slot, data: kept });
    return true;
  }

  function forget(address: Address, before: Known<R>, slot: bigint, out: ReturnType<typeof emptyChanges>): void {
    known.delete(address);
    out.removed.push(before.record);
    out.stored.push({ address, slot, data: null });
  }

  function* reconcile(accounts: readonly ProgramAccountData[], slot: bigint): SlicedWork<BaselineChanges<R>> {
    const current = ++generation;
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
      const before = known.get(account.address);
      if (before && (before.slot > slot || samePrefix(before.data, account.data))) {
        // Unchanged, or written after this read began (its pushed state is newer than the read's).
        before.seen = current;
        if (before.slot < slot) before.slot = slot;
        continue;
      }
      if (!take(account.address, account.data, slot, before, out)) out.skipped.push(account.address);
    }
    // Accounts the read did not return (or returned undecodable) are gone, unless a pushed write
    // newer than the read says otherwise.
    let n = 0;
    for (const [address, entry] of known) {
      if (entry.seen !== current && entry.slot <= slot) forget(address, entry, slot, out);
      if ((++n & 1023) === 0) yield;
    }
    return out;
  }

  function* apply(writes: readonly AccountWrite[]): SlicedWork<BaselineChanges<R>> {
    const out = emptyChanges(writes.length);
    for (let i = 0; i < writes.length; i++) {
      if ((i & 31) === 31) yield;
      const write = writes[i] as AccountWrite;
      const before = known.get(write.address);
      if (before && write.slot < before.slot) continue;
      // SECURITY: as in a full read; and an account without lamports no longer exists.
      const live = write.owner === programId && write.lamports > 0n;
      if (before && live && samePrefix(before.data, write.data)) {
        before.slot = write.slot;
        continue;
      }
      if (!live || !take(write.address, write.data, write.slot, before, out)) {
        if (write.owner !== programId || live) out.skipped.push(write.address);
        if (before) forget(write.address, before, write.slot, out);
      }
    }
    return out;
  }

  return Object.freeze({
    size: () => known.size,
    *records() {
      const out: R[] = [];
      for (const entry of known.values()) {
        out.push(entry.record);
        if ((out.length & 4095) === 0) yield;
      }
      return out;
    },
    reconcile,
    apply,
  });
}

/** Whether `data` starts with `prefix`, by native memcmp (kit's bytesEqual compares in JS, ~40x slower). */
function samePrefix(prefix: ReadonlyUint8Array, data: ReadonlyUint8Array): boolean {
  if (data.length < prefix.length) return false;
  const head = data.length === prefix.length ? data : data.subarray(0, prefix.length);
  // Buffer.compare only reads its arguments; kit types account bytes as readonly.
  return Buffer.compare(prefix as Uint8Array, head as Uint8Array) === 0;
}
