import type { Address } from "@solana/kit";

/**
 * The last known state of each account of one kind, as columns: per account a row in typed arrays
 * (the bytes its fields took, a 64-bit fingerprint as two 32-bit hashes, its slot, the generation
 * of the last full read that saw it, the order it was applied in) and its decoded record. An
 * object an account was 100,000 heap cells at 100,000 agents that every full collection walked;
 * here they are six typed arrays and one array of records, whatever the count.
 *
 * Rows of forgotten accounts are reused. Iteration follows the order accounts were first set, as
 * a Map's does.
 */
export type KnownStates<R> = Readonly<{
  size(): number;
  /** The account's row, or -1 when it is not known. */
  rowOf(address: Address): number;
  /** Sets the account's state (a new row, or its own row again when known). */
  set(address: Address, state: Readonly<{ size: number; h1: number; h2: number; record: R; slot: number; seen: number; applied: number }>): void;
  delete(address: Address): void;
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
  const rows = new Map<Address, number>();
  const free: number[] = [];
  const records: (R | undefined)[] = [];
  let capacity = 256;
  let sizes = new Int32Array(capacity);
  let h1s = new Uint32Array(capacity);
  let h2s = new Uint32Array(capacity);
  let slots = new Float64Array(capacity);
  let seens = new Float64Array(capacity);
  let applieds = new Float64Array(capacity);

  function grown<T extends Int32Array | Uint32Array | Float64Array>(array: T, make: (n: number) => T): T {
    const next = make(capacity);
    next.set(array);
    return next;
  }

  function newRow(): number {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    const row = records.length;
    if (row === capacity) {
      capacity *= 2;
      sizes = grown(sizes, (n) => new Int32Array(n));
      h1s = grown(h1s, (n) => new Uint32Array(n));
      h2s = grown(h2s, (n) => new Uint32Array(n));
      slots = grown(slots, (n) => new Float64Array(n));
      seens = grown(seens, (n) => new Float64Array(n));
      applieds = grown(applieds, (n) => new Float64Array(n));
    }
    records.push(undefined);
    return row;
  }

  return Object.freeze({
    size: () => rows.size,
    rowOf: (address: Address) => rows.get(address) ?? -1,
    set(address, state) {
      let row = rows.get(address);
      if (row === undefined) {
        row = newRow();
        rows.set(address, row);
      }
      sizes[row] = state.size;
      h1s[row] = state.h1;
      h2s[row] = state.h2;
      slots[row] = state.slot;
      seens[row] = state.seen;
      applieds[row] = state.applied;
      records[row] = state.record;
    },
    delete(address) {
      const row = rows.get(address);
      if (row === undefined) return;
      rows.delete(address);
      // The record goes with it (nothing keeps a forgotten account's record alive).
      records[row] = undefined;
      free.push(row);
    },
    entries: () => rows.entries(),
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
