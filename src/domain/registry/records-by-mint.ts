import type { SlicedWork } from "./sliced-work.ts";

/** An agent's feedback entries or services, by the agent's nftMint, in no particular order. */
export type RecordsByMint<T> = ReadonlyMap<string, readonly T[]>;

/** `records` grouped by mint, pausing every 1,024. */
export function* groupByMint<T>(records: Iterable<T>, mintOf: (record: T) => string): SlicedWork<Map<string, readonly T[]>> {
  const groups = new Map<string, T[]>();
  let n = 0;
  for (const record of records) {
    const mint = mintOf(record);
    const group = groups.get(mint);
    if (group) group.push(record);
    else groups.set(mint, [record]);
    if ((++n & 1023) === 0) yield;
  }
  return groups;
}

/**
 * `groups` with `removed` records taken out and `added` ones put in, in place. Each touched group
 * is replaced by a new array, never changed: a reader holding a group keeps a consistent list.
 */
export function* regroup<T>(groups: Map<string, readonly T[]>, added: readonly T[], removed: readonly T[], mintOf: (record: T) => string): SlicedWork<void> {
  const out = new Set(removed);
  const touched = new Map<string, T[]>();
  const draft = (mint: string): T[] => {
    let group = touched.get(mint);
    if (!group) touched.set(mint, (group = [...(groups.get(mint) ?? [])]));
    return group;
  };
  let n = 0;
  for (const record of removed) {
    draft(mintOf(record));
    if ((++n & 1023) === 0) yield;
  }
  for (const [mint, group] of touched) touched.set(mint, group.filter((record) => !out.has(record)));
  for (const record of added) {
    draft(mintOf(record)).push(record);
    if ((++n & 1023) === 0) yield;
  }
  for (const [mint, group] of touched) {
    if (group.length === 0) groups.delete(mint);
    else groups.set(mint, group);
  }
}
