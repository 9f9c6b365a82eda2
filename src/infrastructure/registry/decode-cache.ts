import { Buffer } from "node:buffer";
import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { DecodeResult } from "../../domain/registry/decode-result.ts";
import { finishNow, type SlicedWork } from "../../domain/registry/sliced-work.ts";
import type { ProgramAccountData } from "./rpc-program-account-reader.ts";

/**
 * `changed`: accounts decoded anew (new, or other bytes), plus last refresh's accounts that are
 * gone or no longer decodable. 0 exactly when nothing differs from the last refresh.
 */
export type DecodedAccounts<R> = Readonly<{ records: R[]; skipped: Address[]; changed: number }>;

/**
 * A decoded account and the bytes its fields took (not the padding after them, which the decode
 * ignores: equal prefixes decode to equal records); `seen` is the last refresh that met it.
 */
type Known<R> = { readonly data: ReadonlyUint8Array; readonly record: R; seen: number };

/**
 * Turns program accounts into read-model records, reusing last refresh's record for every
 * account whose bytes did not change. Most accounts are unchanged between two refreshes, so a
 * refresh costs a byte comparison per account instead of a full Borsh decode, and unchanged
 * records keep their identity (later stages can memoise on them, and skip work when nothing changed).
 */
export type DecodeCache<R> = Readonly<{
  /** Decodes a full refresh and makes it the new baseline, pausing every few hundred accounts. */
  refresh(accounts: readonly ProgramAccountData[]): SlicedWork<DecodedAccounts<R>>;
  /** Decodes without touching the baseline (for partial, filtered reads). */
  decodeOnly(accounts: readonly ProgramAccountData[]): DecodedAccounts<R>;
}>;

export function createDecodeCache<T, R>(
  programId: Address,
  decode: (data: ReadonlyUint8Array) => DecodeResult<T>,
  toRecord: (address: Address, value: T) => R,
): DecodeCache<R> {
  // Changed in place, and only at the end of a refresh (no yield in between), so a refresh that
  // finds nothing changed allocates nothing but its list of records.
  const baseline = new Map<Address, Known<R>>();
  let generation = 0;

  function* run(accounts: readonly ProgramAccountData[], refresh: boolean): SlicedWork<DecodedAccounts<R>> {
    const current = ++generation;
    const records: R[] = [];
    const skipped: Address[] = [];
    const fresh: [Address, Known<R>][] = [];
    let seenKnown = 0;
    let replacing = 0;
    for (let i = 0; i < accounts.length; i++) {
      if ((i & 255) === 255) yield;
      const account = accounts[i] as ProgramAccountData;
      // SECURITY: only the registry program can write its accounts; anything else is a forgery
      // (or a misbehaving RPC) and must not enter the read model.
      if (account.owner !== programId) {
        skipped.push(account.address);
        continue;
      }
      const known = baseline.get(account.address);
      if (known && samePrefix(known.data, account.data)) {
        if (refresh && known.seen !== current) {
          known.seen = current;
          seenKnown++;
        }
        records.push(known.record);
        continue;
      }
      const result = decode(account.data);
      if (!result.ok) {
        skipped.push(account.address);
        continue;
      }
      const record = toRecord(account.address, result.value);
      if (known) replacing++;
      records.push(record);
      fresh.push([account.address, { data: account.data.slice(0, result.size), record, seen: current }]);
    }
    // Accounts of the last refresh that did not come back unchanged (gone, changed, no longer
    // decodable) leave the baseline; new and changed ones enter it.
    const gone = baseline.size - seenKnown;
    if (refresh && (gone > 0 || fresh.length > 0)) {
      if (gone > 0) for (const [address, known] of baseline) if (known.seen !== current) baseline.delete(address);
      for (const [address, known] of fresh) baseline.set(address, known);
    }
    // A changed account is both fresh and gone from the old baseline: count it once.
    return { records, skipped, changed: fresh.length + gone - replacing };
  }

  return Object.freeze({
    refresh: (accounts: readonly ProgramAccountData[]) => run(accounts, true),
    decodeOnly: (accounts: readonly ProgramAccountData[]) => finishNow(run(accounts, false)),
  });
}

/** Whether `data` starts with `prefix`, by native memcmp (kit's bytesEqual compares in JS, ~40x slower). */
function samePrefix(prefix: ReadonlyUint8Array, data: ReadonlyUint8Array): boolean {
  if (data.length < prefix.length) return false;
  const head = data.length === prefix.length ? data : data.subarray(0, prefix.length);
  // Buffer.compare only reads its arguments; kit types account bytes as readonly.
  return Buffer.compare(prefix as Uint8Array, head as Uint8Array) === 0;
}
