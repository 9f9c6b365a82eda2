import type { AgentRecord } from "./agent-record.ts";
import { compareAgentKeys, type AgentKey } from "./agent-order.ts";
import { toHex } from "./borsh-codecs.ts";
import { IndexedAgent, type CatalogEntry } from "./indexed-agent.ts";
import { KeyTable } from "./key-table.ts";
import { compareKeys, keyHash, packKey, sameKey, type PackedKey } from "./packed-key.ts";
import type { SlicedWork } from "./sliced-work.ts";
import { gramAt, gramPostings, type GramKind, type GramList } from "./uri-grams.ts";

export type { CatalogEntry };

/**
 * compareAgentKeys for catalog entries, faster: bigint comparisons were the largest cost of
 * sorting 100,000 agents. Rounding to a double keeps order (x > y implies Number(x) >= Number(y)),
 * so different ranks decide; equal exact ranks (below 2^53: every real time) are equal times, so the
 * mints decide; only equal ranks past 2^53 need the exact comparison.
 */
export function compareEntries(a: CatalogEntry, b: CatalogEntry): number {
  if (a.updatedRank !== b.updatedRank) return a.updatedRank > b.updatedRank ? -1 : 1;
  if (!Number.isSafeInteger(a.updatedRank)) return compareAgentKeys(a, b);
  // The mints' string order by their packed keys (packed-key.ts), without their strings.
  return compareKeys(b, a);
}

/** Whether `a` was updated after `b` (exactly, past 2^53 too). */
export function updatedLater(a: CatalogEntry, b: CatalogEntry): boolean {
  if (a.updatedRank !== b.updatedRank) return a.updatedRank > b.updatedRank;
  return !Number.isSafeInteger(a.updatedRank) && a.updatedAt > b.updatedAt;
}

/**
 * compareAgentKeys(entry, key), by the entry's rank while it decides (a cursor's key is exact);
 * `mint` is the key's mint packed.
 */
export function compareEntryWithKey(entry: CatalogEntry, key: AgentKey, mint: PackedKey): number {
  const rank = Number(key.updatedAt);
  if (entry.updatedRank !== rank) return entry.updatedRank > rank ? -1 : 1;
  if (!Number.isSafeInteger(rank)) return compareAgentKeys(entry, key);
  return compareKeys(mint, entry);
}

/** Base entries by mint: open addressing over positions in `sorted` (no string, no object an agent). */
export class PositionsByMint {
  private readonly slots: Int32Array;
  /** Distinct mints held. */
  size = 0;

  constructor(private readonly sorted: readonly CatalogEntry[]) {
    let capacity = 16;
    while (capacity < sorted.length * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
  }

  /** Adds the entry at `position`; a mint already there takes the later position (as a Map's set). */
  add(position: number): void {
    const entry = this.sorted[position] as CatalogEntry;
    const mask = this.slots.length - 1;
    let slot = keyHash(entry) & mask;
    while (this.slots[slot] !== 0 && !sameKey(this.sorted[(this.slots[slot] as number) - 1] as CatalogEntry, entry)) slot = (slot + 1) & mask;
    if (this.slots[slot] === 0) this.size += 1;
    this.slots[slot] = position + 1;
  }

  get(mint: PackedKey): CatalogEntry | undefined {
    const mask = this.slots.length - 1;
    for (let slot = keyHash(mint) & mask; this.slots[slot] !== 0; slot = (slot + 1) & mask) {
      const entry = this.sorted[(this.slots[slot] as number) - 1] as CatalogEntry;
      if (sameKey(entry, mint)) return entry;
    }
    return undefined;
  }
}

/** Positions in `BaseIndex.sorted`, ascending, so in list order too. */
export type Positions = Int32Array;

/**
 * The bulk of the catalog, built in one pass over all agents and never changed: every list the
 * catalog answers from, in list order (updatedAt desc, nftMint desc). Because positions in
 * `sorted` never move, each list is a typed array of positions (4 bytes an agent), not an array
 * of references.
 */
export type BaseIndex = Readonly<{
  sorted: readonly CatalogEntry[];
  byMint: PositionsByMint;
  byOwner: ReadonlyMap<string, Positions>;
  byTag: ReadonlyMap<string, Positions>;
  active: Positions;
  inactive: Positions;
  /**
   * Agents by 2- and 3-code-unit windows of the lower-cased metadataUri (uri-grams.ts); `value` is
   * null until built when the base came from a snapshot (buildBase with `deferGrams`): `q` scans
   * the base meanwhile. Filled once, in place, so every catalog over this base gets them.
   */
  grams: { value: UriGrams | null };
}>;

/** A window's list is DENSE (null) when more than half the base holds it: `q` then scans rather than walk it. */
export type UriGrams = Readonly<{ bigrams: ReadonlyMap<number, GramList>; trigrams: ReadonlyMap<number, GramList> }>;

/**
 * What changed since the base was built, kept small and rebuilt whole at each refresh: base
 * entries that are no longer current (`removed`), and the current entries that are not in the
 * base (`added`, in list order, with the same lists over them). A refresh that changes a few agents
 * rebuilds this, not the base.
 */
export type Overlay = Readonly<{
  removed: ReadonlySet<CatalogEntry>;
  added: readonly CatalogEntry[];
  /** The overlay's word on a mint: its current entry, or null when the agent is gone. */
  byMint: KeyTable<PackedKey, CatalogEntry | null>;
  byOwner: ReadonlyMap<string, readonly CatalogEntry[]>;
  byTag: ReadonlyMap<string, readonly CatalogEntry[]>;
  active: readonly CatalogEntry[];
  inactive: readonly CatalogEntry[];
  bigrams: ReadonlyMap<number, readonly CatalogEntry[]>;
  trigrams: ReadonlyMap<number, readonly CatalogEntry[]>;
}>;

/** Entries of records that are not IndexedAgents (tests, tools), made once per record. */
const entries = new WeakMap<AgentRecord, CatalogEntry>();

/** The catalog's entry for `record`: the record itself when it is an IndexedAgent (the index's own). */
export function entryOf(record: AgentRecord): CatalogEntry {
  if (record instanceof IndexedAgent) return record;
  let entry = entries.get(record);
  if (!entry) {
    const { identity } = record;
    entry = {
      ...packKey(identity.nftMint),
      record,
      nftMint: identity.nftMint,
      updatedAt: identity.updatedAt,
      updatedRank: Number(identity.updatedAt),
      owner: identity.owner,
      active: identity.active,
      uriLower: identity.metadataUri.toLowerCase(),
      tagHashes: [...new Set(identity.tags.map(toHex))],
    };
    entries.set(record, entry);
  }
  return entry;
}

/**
 * Every list of the base in one pass over `sorted` (already in list order); with `deferGrams` the
 * `q` lists are left to fillGrams (a restart serves first, a few seconds sooner at 1,000,000).
 */
export function* buildBase(sorted: readonly CatalogEntry[], deferGrams = false): SlicedWork<BaseIndex> {
  const byMint = new PositionsByMint(sorted);
  const byOwner = new Map<string, number[]>();
  const byTag = new Map<string, number[]>();
  const active: number[] = [];
  const inactive: number[] = [];
  for (let position = 0; position < sorted.length; position++) {
    const entry = sorted[position] as CatalogEntry;
    byMint.add(position);
    append(byOwner, entry.owner, position);
    for (const tag of entry.tagHashes) append(byTag, tag, position);
    (entry.active ? active : inactive).push(position);
    if ((position & 255) === 255) yield;
  }
  return {
    sorted,
    byMint,
    byOwner: yield* packed(byOwner),
    byTag: yield* packed(byTag),
    active: Int32Array.from(active),
    inactive: Int32Array.from(inactive),
    grams: { value: deferGrams ? null : yield* gramsOf(sorted.map((entry) => entry.uriLower)) },
  };
}

function* gramsOf(uris: readonly string[]): SlicedWork<UriGrams> {
  return { bigrams: yield* gramPostings(uris, 2), trigrams: yield* gramPostings(uris, 3) };
}

/** Builds the base's `q` lists if they were deferred. */
export function* fillGrams(base: BaseIndex): SlicedWork<void> {
  if (base.grams.value) return;
  const uris = base.sorted.map((entry) => entry.uriLower);
  yield;
  const grams = yield* gramsOf(uris);
  base.grams.value ??= grams;
}

export const EMPTY_OVERLAY: Overlay = Object.freeze({
  removed: new Set<CatalogEntry>(),
  added: [],
  byMint: new KeyTable<PackedKey, CatalogEntry | null>(),
  byOwner: new Map(),
  byTag: new Map(),
  active: [],
  inactive: [],
  bigrams: new Map(),
  trigrams: new Map(),
});

/** The overlay over `added` (sorted), with `removed` base entries and the mints now gone. */
export function* buildOverlay(removed: ReadonlySet<CatalogEntry>, added: readonly CatalogEntry[], gone: Iterable<PackedKey>): SlicedWork<Overlay> {
  const byMint = new KeyTable<PackedKey, CatalogEntry | null>(added.length);
  for (const mint of gone) byMint.set(mint, null);
  const byOwner = new Map<string, CatalogEntry[]>();
  const byTag = new Map<string, CatalogEntry[]>();
  const bigrams = createGramCollector<CatalogEntry>(2);
  const trigrams = createGramCollector<CatalogEntry>(3);
  const active: CatalogEntry[] = [];
  const inactive: CatalogEntry[] = [];
  for (let i = 0; i < added.length; i++) {
    const entry = added[i] as CatalogEntry;
    byMint.set(entry, entry);
    append(byOwner, entry.owner, entry);
    for (const tag of entry.tagHashes) append(byTag, tag, entry);
    (entry.active ? active : inactive).push(entry);
    bigrams.add(entry.uriLower, entry);
    trigrams.add(entry.uriLower, entry);
    if ((i & 63) === 63) yield;
  }
  return { removed, added, byMint, byOwner, byTag, active, inactive, bigrams: bigrams.lists(), trigrams: trigrams.lists() };
}

/** `sorted` without `removed`, merged with `added` (sorted): the next base's list, without a sort. */
export function* mergedInOrder(sorted: readonly CatalogEntry[], removed: ReadonlySet<CatalogEntry>, added: readonly CatalogEntry[]): SlicedWork<CatalogEntry[]> {
  const out: CatalogEntry[] = [];
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    const entry = sorted[i] as CatalogEntry;
    if (removed.has(entry)) continue;
    while (j < added.length && compareEntries(added[j] as CatalogEntry, entry) < 0) out.push(added[j++] as CatalogEntry);
    out.push(entry);
    if ((i & 1023) === 1023) yield;
  }
  while (j < added.length) out.push(added[j++] as CatalogEntry);
  return out;
}

/** Adds `item` unless it is already the last one (an entry's keys and windows repeat in a row). */
function append<K, T>(lists: Map<K, T[]>, key: K, item: T): void {
  const list = lists.get(key);
  if (!list) lists.set(key, [item]);
  else if (list[list.length - 1] !== item) list.push(item);
}

function* packed<K>(lists: ReadonlyMap<K, number[]>): SlicedWork<Map<K, Positions>> {
  const out = new Map<K, Positions>();
  let n = 0;
  for (const [key, list] of lists) {
    out.set(key, Int32Array.from(list));
    if ((++n & 255) === 0) yield;
  }
  return out;
}

/**
 * Collects entries by window while an overlay is built (the base's lists come from gramPostings).
 * Windows of ASCII characters (nearly all of a URI) go through a direct table instead of a Map lookup.
 */
function createGramCollector<T>(size: GramKind) {
  const slots = new Int32Array(1 << (7 * size));
  const byId: T[][] = [[]];
  const keys: number[] = [0];
  const others = new Map<number, T[]>();
  return {
    add(text: string, item: T): void {
      for (let at = 0; at + size <= text.length; at++) {
        const a = text.charCodeAt(at);
        const b = text.charCodeAt(at + 1);
        const c = size === 3 ? text.charCodeAt(at + 2) : 0;
        if ((a | b | c) < 128) {
          const slot = size === 3 ? (a << 14) | (b << 7) | c : (a << 7) | b;
          let id = slots[slot] as number;
          if (id === 0) {
            id = byId.length;
            slots[slot] = id;
            byId.push([]);
            keys.push(gramAt(text, at, size));
          }
          const list = byId[id] as T[];
          if (list[list.length - 1] !== item) list.push(item);
        } else {
          append(others, gramAt(text, at, size), item);
        }
      }
    },
    /** Every window's list, by the window's key (uri-grams.ts). */
    lists(): Map<number, T[]> {
      const out = new Map<number, T[]>(others);
      for (let id = 1; id < byId.length; id++) out.set(keys[id] as number, byId[id] as T[]);
      return out;
    },
  };
}
