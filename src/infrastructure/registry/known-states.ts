import type { Address } from "@solana/kit";
import { packable, packedWord, PACKED_KEY_WORDS, wordsText } from "../../domain/registry/packed-key.ts";

/**
 * The last known state of each account of one kind, as columns: per account a row in typed arrays
 * (the bytes its fields took, a 64-bit fingerprint as two 32-bit hashes, its slot, the generation
 * of the last full read that saw it, the order it was applied in) and its decoded record. An
 * object an account was 100,000 heap cells at 100,000 agents that every full collection walked;
 * here they are six typed arrays and one array of records, whatever the count.
 *
 * Rows of forgotten accounts are reused. Iteration follows the order accounts were first set, as
 * a Map's does (a list through the rows).
 *
 * Addresses are found through a hash over their packed text (packed-key.ts: seven doubles a row in
 * one Float64Array), not a Map keyed by strings: that Map kept one address string per account alive,
 * a million heap cells at a million agents. An address that does not pack (never a real one) goes
 * to a small Map beside it.
 */
export type KnownStates<R> = Readonly<{
  size(): number;
  /** The account's row, or -1 when it is not known. */
  rowOf(address: Address): number;
  /** Sets the account's state (a new row, or its own row again when known). */
  set(address: Address, state: Readonly<{ size: number; h1: number; h2: number; record: R; slot: number; seen: number; applied: number }>): void;
  delete(address: Address): void;
  /** Makes room for `rows` accounts at once (a snapshot's count): no growing or rehashing while they are set. */
  reserve(rows: number): void;
  /** Each known account's row, in the order first set. */
  rows(): IterableIterator<number>;
  /** The address of a known row. */
  address(row: number): Address;
  /** Each known account with its row, in the order first set. */
  entries(): IterableIterator<[Address, number]>;
  /** How many bytes the fields took. */
  fieldBytes(row: number): number;
  h1(row: number): number;
  h2(row: number): number;
  record(row: number): R;
  slot(row: number): number;
  seen(row: number): number;
  applied(row: number): number;
  setSlot(row: number, slot: number): void;
  setSeen(row: number, seen: number): void;
  setApplied(row: number, applied: number): void;
}>;

export function createKnownStates<R>(): KnownStates<R> {
  const free: number[] = [];
  const records: (R | undefined)[] = [];
  /** Addresses that do not pack, by text (tests' made-up names; no real address). */
  const odd = new Map<string, number>();
  const oddText: (string | undefined)[] = [];
  let count = 0;
  let capacity = 256;
  let sizes = new Int32Array(capacity);
  let h1s = new Uint32Array(capacity);
  let h2s = new Uint32Array(capacity);
  let slots = new Float64Array(capacity);
  let seens = new Float64Array(capacity);
  let applieds = new Float64Array(capacity);
  /** Each row's address packed (PACKED_KEY_WORDS words a row). */
  let keys = new Float64Array(capacity * PACKED_KEY_WORDS);
  /** The order first set: a doubly linked list through the rows (-1 ends it). */
  let nexts = new Int32Array(capacity);
  let prevs = new Int32Array(capacity);
  let first = -1;
  let last = -1;
  /** Open addressing: row + 1, 0 empty, -1 a deleted row's slot (probing goes on past it). */
  let table = new Int32Array(1024);
  let tableUsed = 0;
  const probe = new Float64Array(PACKED_KEY_WORDS);

  function grown<T extends Int32Array | Uint32Array | Float64Array>(array: T, make: (n: number) => T, size = capacity): T {
    const next = make(size);
    next.set(array);
    return next;
  }

  function hashOf(words: Float64Array, at: number): number {
    let h = 0x811c9dc5;
    for (let i = at; i < at + 3; i++) {
      const w = words[i] as number;
      h = Math.imul(h ^ (w % 0x40000000), 0x01000193);
      h = Math.imul(h ^ Math.floor(w / 0x40000000), 0x01000193);
    }
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    return (h ^ (h >>> 12)) >>> 0;
  }

  function sameAsProbe(row: number): boolean {
    const at = row * PACKED_KEY_WORDS;
    for (let i = 0; i < PACKED_KEY_WORDS; i++) if (keys[at + i] !== probe[i]) return false;
    return true;
  }

  /** The table slot of the probe's row, or -1 - (the first free slot) when it is not there. */
  function slotOfProbe(): number {
    const mask = table.length - 1;
    let reusable = -1;
    for (let slot = hashOf(probe, 0) & mask; ; slot = (slot + 1) & mask) {
      const value = table[slot] as number;
      if (value === 0) return -1 - (reusable >= 0 ? reusable : slot);
      if (value < 0) {
        if (reusable < 0) reusable = slot;
      } else if (sameAsProbe(value - 1)) return slot;
    }
  }

  function setProbe(address: string): void {
    for (let i = 0; i < PACKED_KEY_WORDS; i++) probe[i] = packedWord(address, i);
  }

  function rowOf(address: Address): number {
    if (!packable(address)) return odd.get(address) ?? -1;
    setProbe(address);
    const slot = slotOfProbe();
    return slot < 0 ? -1 : (table[slot] as number) - 1;
  }

  function rehash(size: number): void {
    table = new Int32Array(size);
    tableUsed = 0;
    const mask = size - 1;
    for (let row = first; row >= 0; row = nexts[row] as number) {
      if (oddText[row] !== undefined) continue;
      let slot = hashOf(keys, row * PACKED_KEY_WORDS) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = row + 1;
      tableUsed++;
    }
  }

  /** Every per-row column to `rows` rows (their contents kept). */
  function growColumns(rows: number): void {
    capacity = rows;
    sizes = grown(sizes, (n) => new Int32Array(n));
    h1s = grown(h1s, (n) => new Uint32Array(n));
    h2s = grown(h2s, (n) => new Uint32Array(n));
    slots = grown(slots, (n) => new Float64Array(n));
    seens = grown(seens, (n) => new Float64Array(n));
    applieds = grown(applieds, (n) => new Float64Array(n));
    keys = grown(keys, (n) => new Float64Array(n), capacity * PACKED_KEY_WORDS);
    nexts = grown(nexts, (n) => new Int32Array(n));
    prevs = grown(prevs, (n) => new Int32Array(n));
  }

  function newRow(): number {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    const row = records.length;
    if (row === capacity) growColumns(capacity * 2);
    records.push(undefined);
    oddText.push(undefined);
    return row;
  }

  /** A new row for `address`, linked last and findable; the caller's rowOf left it in the probe. */
  function addRow(address: Address): number {
    const packs = packable(address);
    // At most half full, deleted slots counted: past it, a table twice the live rows' need.
    if (packs && (tableUsed + 1) * 2 > table.length) {
      let size = 1024;
      while (size < (count + 1) * 4) size *= 2;
      rehash(size);
    }
    const row = newRow();
    count++;
    nexts[row] = -1;
    prevs[row] = last;
    if (last >= 0) nexts[last] = row;
    else first = row;
    last = row;
    if (!packs) {
      odd.set(address, row);
      oddText[row] = address;
      return row;
    }
    oddText[row] = undefined;
    keys.set(probe, row * PACKED_KEY_WORDS);
    const slot = -1 - slotOfProbe();
    if (table[slot] === 0) tableUsed++;
    table[slot] = row + 1;
    return row;
  }

  function removeRow(address: Address, row: number): void {
    if (oddText[row] !== undefined) {
      odd.delete(address);
      oddText[row] = undefined;
    } else {
      setProbe(address);
      table[slotOfProbe()] = -1;
    }
    const before = prevs[row] as number;
    const after = nexts[row] as number;
    if (before >= 0) nexts[before] = after;
    else first = after;
    if (after >= 0) prevs[after] = before;
    else last = before;
    count--;
  }

  function* rows(): IterableIterator<number> {
    // The next row is read before yielding: the caller may forget the current one.
    for (let row = first; row >= 0; ) {
      const next = nexts[row] as number;
      yield row;
      row = next;
    }
  }

  function address(row: number): Address {
    const text = oddText[row];
    if (text !== undefined) return text as Address;
    const at = row * PACKED_KEY_WORDS;
    return wordsText(keys[at] as number, keys[at + 1] as number, keys[at + 2] as number, keys[at + 3] as number, keys[at + 4] as number, keys[at + 5] as number, keys[at + 6] as number) as Address;
  }

  function reserve(rows: number): void {
    if (rows > capacity) growColumns(rows);
    let size = table.length;
    while (size < rows * 4) size *= 2;
    if (size > table.length) rehash(size);
  }

  return Object.freeze({
    size: () => count,
    reserve,
    rowOf,
    set(address, state) {
      let row = rowOf(address);
      // rowOf left the address packed in the probe: addRow packs it again only if it does not pack.
      if (row < 0) row = addRow(address);
      sizes[row] = state.size;
      h1s[row] = state.h1;
      h2s[row] = state.h2;
      slots[row] = state.slot;
      seens[row] = state.seen;
      applieds[row] = state.applied;
      records[row] = state.record;
    },
    delete(address) {
      const row = rowOf(address);
      if (row < 0) return;
      removeRow(address, row);
      // The record goes with it (nothing keeps a forgotten account's record alive).
      records[row] = undefined;
      free.push(row);
    },
    rows,
    address,
    *entries() {
      for (const row of rows()) yield [address(row), row];
    },
    fieldBytes: (row) => sizes[row] as number,
    h1: (row) => h1s[row] as number,
    h2: (row) => h2s[row] as number,
    record: (row) => records[row] as R,
    slot: (row) => slots[row] as number,
    seen: (row) => seens[row] as number,
    applied: (row) => applieds[row] as number,
    setSlot: (row, slot) => void (slots[row] = slot),
    setSeen: (row, seen) => void (seens[row] = seen),
    setApplied: (row, applied) => void (applieds[row] = applied),
  });
}
