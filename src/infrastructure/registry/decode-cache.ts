import { bytesEqual, type Address, type ReadonlyUint8Array } from "@solana/kit";
import type { AccountSnapshot } from "../../application/ports/ledger.ts";
import type { DecodeResult } from "../../domain/registry/decode-result.ts";

export type DecodedAccounts<R> = Readonly<{ records: R[]; skipped: Address[] }>;

/**
 * Turns program accounts into read-model records, reusing last refresh's record for every
 * account whose bytes did not change. Most accounts are unchanged between two refreshes, so a
 * refresh costs a byte comparison per account instead of a full Borsh decode, and unchanged
 * records keep their identity (later stages can memoise on them).
 */
export type DecodeCache<R> = Readonly<{
  /** Decodes a full refresh and makes it the new baseline. */
  refresh(accounts: readonly AccountSnapshot[]): DecodedAccounts<R>;
  /** Decodes without touching the baseline (for partial, filtered reads). */
  decodeOnly(accounts: readonly AccountSnapshot[]): DecodedAccounts<R>;
}>;

export function createDecodeCache<T, R>(
  programId: Address,
  decode: (data: ReadonlyUint8Array) => DecodeResult<T>,
  toRecord: (address: Address, value: T) => R,
): DecodeCache<R> {
  let baseline = new Map<Address, Readonly<{ data: ReadonlyUint8Array; record: R }>>();

  function run(accounts: readonly AccountSnapshot[], next: Map<Address, Readonly<{ data: ReadonlyUint8Array; record: R }>> | null) {
    const records: R[] = [];
    const skipped: Address[] = [];
    for (const account of accounts) {
      // SECURITY: only the registry program can write its accounts; anything else is a forgery
      // (or a misbehaving RPC) and must not enter the read model.
      if (account.owner !== programId) {
        skipped.push(account.address);
        continue;
      }
      const known = baseline.get(account.address);
      let record: R;
      if (known && bytesEqual(known.data, account.data)) {
        record = known.record;
      } else {
        const result = decode(account.data);
        if (!result.ok) {
          skipped.push(account.address);
          continue;
        }
        record = toRecord(account.address, result.value);
      }
      records.push(record);
      next?.set(account.address, { data: account.data, record });
    }
    return { records, skipped };
  }

  return Object.freeze({
    refresh(accounts: readonly AccountSnapshot[]) {
      const next = new Map<Address, Readonly<{ data: ReadonlyUint8Array; record: R }>>();
      const result = run(accounts, next);
      baseline = next;
      return result;
    },
    decodeOnly: (accounts: readonly AccountSnapshot[]) => run(accounts, null),
  });
}
