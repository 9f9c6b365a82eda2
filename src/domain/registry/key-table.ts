import { keyHash, sameKey, type PackedKey } from "./packed-key.ts";

/**
 * A map by packed key (packed-key.ts): the catalog's agents by mint without a string per agent.
 * Open addressing over an Int32Array of rows; each row's key is the object stored with it (`keyOf`),
 * so the table holds no key of its own. Deleting leaves the row as a tombstone (`has` is false, a
 * later `set` of the same key takes it back): tables live for one build or one catalog.
 * Values iterate in the order their rows were first made.
 */
export class KeyTable<K extends PackedKey, V> {
  private slots: Int32Array;
  private readonly keys: K[] = [];
  private readonly values: (V | typeof GONE)[] = [];
  private live = 0;

  constructor(expected = 16) {
    let capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
  }

  get size(): number {
    return this.live;
  }

  /** The row of `key`, or -1. */
  private rowOf(key: PackedKey): number {
    const mask = this.slots.length - 1;
    for (let slot = keyHash(key) & mask; ; slot = (slot + 1) & mask) {
      const row = (this.slots[slot] as number) - 1;
      if (row < 0) return -1;
      if (sameKey(this.keys[row] as K, key)) return row;
    }
  }

  get(key: PackedKey): V | undefined {
    const row = this.rowOf(key);
    if (row < 0) return undefined;
    const value = this.values[row];
    return value === GONE ? undefined : (value as V);
  }

  has(key: PackedKey): boolean {
    const row = this.rowOf(key);
    return row >= 0 && this.values[row] !== GONE;
  }

  /** Sets the value of `key`, keeping `key` (an object holding the packed words) as the row's key. */
  set(key: K, value: V): void {
    const row = this.rowOf(key);
    if (row >= 0) {
      if (this.values[row] === GONE) this.live++;
      this.values[row] = value;
      return;
    }
    if ((this.keys.length + 1) * 2 > this.slots.length) this.grow();
    this.keys.push(key);
    this.values.push(value);
    this.live++;
    this.place(this.keys.length - 1);
  }

  delete(key: PackedKey): void {
    const row = this.rowOf(key);
    if (row < 0 || this.values[row] === GONE) return;
    this.values[row] = GONE;
    this.live--;
  }

  *valuesInOrder(): IterableIterator<V> {
    for (const value of this.values) if (value !== GONE) yield value as V;
  }

  private place(row: number): void {
    const mask = this.slots.length - 1;
    let slot = keyHash(this.keys[row] as K) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = row + 1;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let row = 0; row < this.keys.length; row++) this.place(row);
  }
}

const GONE: unique symbol = Symbol("gone");
