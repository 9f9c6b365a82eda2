import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { DecodeResult } from "../../domain/registry/decode-result.ts";
import { groupByMint, regroup, type RecordsByMint } from "../../domain/registry/records-by-mint.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import { createAccountBaseline, type BaselineChanges } from "./account-baseline.ts";
import type { AccountKind, KindSpec } from "./live-account-kind.ts";

/** Feedback and services: records grouped by their agent's mint. */
export function groupedSpec<T, R>(
  programId: Address,
  kind: AccountKind,
  discriminator: ReadonlyUint8Array,
  decode: (data: ReadonlyUint8Array) => DecodeResult<T>,
  toRecord: (address: Address, value: T) => R,
  mintOf: (record: R) => string,
  details?: Readonly<{ indexed(records: readonly R[]): void }>,
): KindSpec<R, RecordsByMint<R>> {
  const baseline = createAccountBaseline(programId, decode, toRecord);
  /** The one map, changed in place (regroup replaces a group, never edits it). */
  let groups: Map<string, readonly R[]> | null = null;
  function* changed(changes: BaselineChanges<R>): SlicedWork<RecordsByMint<R>> {
    if (!groups) groups = yield* groupByMint(yield* baseline.records(), mintOf);
    else yield* regroup(groups, changes.added, changes.removed, mintOf);
    return groups;
  }
  return {
    kind,
    discriminator,
    baseline,
    rebuilt: (_previous, changes) => changed(changes),
    changed: (_previous, changes) => changed(changes),
    ...(details ? { entered: (records: readonly R[]) => details.indexed(records) } : {}),
  };
}
