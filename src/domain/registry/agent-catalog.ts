import type { AgentRecord } from "./agent-record.ts";
import type { AgentKey } from "./agent-order.ts";
import { buildBase, buildOverlay, compareEntries, compareEntryWithKey, EMPTY_OVERLAY, entryOf, fillGrams, updatedLater, mergedInOrder, type BaseIndex, type CatalogEntry, type Overlay, type Positions } from "./catalog-index.ts";
import { IndexedAgent } from "./indexed-agent.ts";
import { KeyTable } from "./key-table.ts";
import { packable, packKey, type PackedKey } from "./packed-key.ts";
import { finishNow, sortSliced, type SlicedWork } from "./sliced-work.ts";
import { queryGrams } from "./uri-grams.ts";

/** List filters, already validated and resolved (category as tag hash hex). */
export type AgentFilter = Readonly<{
  /** Case-insensitive substring of metadataUri. */
  q?: string;
  categoryHash?: string;
  active?: boolean;
  owner?: string;
}>;

export type AgentPageRequest = AgentFilter &
  Readonly<{
    /** Keyset of the last agent of the previous page. */
    after?: AgentKey;
    limit: number;
  }>;

/** `nextKey` is the keyset of the last item when more matching agents follow, else null. */
export type AgentPage = Readonly<{ items: readonly AgentRecord[]; nextKey: AgentKey | null }>;

/** Immutable, pre-sorted, pre-indexed read model of all agents. */
export type AgentCatalog = Readonly<{
  size: number;
  page(request: AgentPageRequest): AgentPage;
  get(nftMint: string): AgentRecord | undefined;
  ownedBy(owner: string): readonly AgentRecord[];
}>;

/**
 * While the agents changed since the base was built are fewer than this share of all agents (and
 * at least OVERLAY_MIN), a refresh rebuilds only the overlay; past it, the base is rebuilt with
 * them (in list order already: a merge, not a sort).
 */
const OVERLAY_SHARE = 1 / 16;
const OVERLAY_MIN = 512;
const EMPTY: readonly CatalogEntry[] = Object.freeze([]);

type State = Readonly<{ base: BaseIndex; overlay: Overlay }>;

/** The index behind each catalog, so the next refresh can start from it. */
const states = new WeakMap<AgentCatalog, State>();

/** The catalog of `records` at once (tests, small reads). */
export function buildAgentCatalog(records: readonly AgentRecord[]): AgentCatalog {
  return finishNow(agentCatalogWork(records));
}

/**
 * The catalog of `records`, as work that pauses every few hundred agents (see sliced-work.ts).
 * Given the previous catalog (records of unchanged accounts must be the same objects as before),
 * it is returned as it is when no agent changed, and when few did it keeps the previous base and
 * rebuilds only the small overlay of what changed.
 */
export function* agentCatalogWork(records: readonly AgentRecord[], previous?: AgentCatalog): SlicedWork<AgentCatalog> {
  const unique = yield* uniqueByMint(records);
  const state = previous ? states.get(previous) : undefined;
  if (previous && state) {
    const { removed, added } = yield* changesSince(state, unique);
    if (removed.length === 0 && added.length === 0) return previous;
    return yield* withChanges(state, removed, added, unique.size);
  }
  const all: CatalogEntry[] = [];
  for (const entry of unique.valuesInOrder()) {
    all.push(entry);
    if ((all.length & 1023) === 0) yield;
  }
  const sorted = yield* sortSliced(all, compareEntries);
  return catalogOf({ base: yield* buildBase(sorted), overlay: EMPTY_OVERLAY });
}

/**
 * The catalog of records already in list order, one per mint (a stored snapshot of a catalog):
 * no sort, and the `q` lists left for catalogGramsWork (`q` scans until then). Null when the
 * records are not in strict list order or repeat a mint: the caller builds the usual way.
 */
export function* sortedAgentCatalogWork(records: readonly AgentRecord[]): SlicedWork<AgentCatalog | null> {
  const sorted: CatalogEntry[] = new Array<CatalogEntry>(records.length);
  for (let i = 0; i < records.length; i++) {
    const entry = entryOf(records[i] as AgentRecord);
    if (i > 0 && compareEntries(sorted[i - 1] as CatalogEntry, entry) >= 0) return null;
    sorted[i] = entry;
    if ((i & 4095) === 4095) yield;
  }
  const base = yield* buildBase(sorted, true);
  if (base.byMint.size !== sorted.length) return null;
  return catalogOf({ base, overlay: EMPTY_OVERLAY });
}

/** Builds the `q` lists a catalog's base left for later; every catalog over that base has them after. */
export function* catalogGramsWork(catalog: AgentCatalog): SlicedWork<void> {
  const state = states.get(catalog);
  if (state) yield* fillGrams(state.base);
}

/**
 * `previous` with some records out and some in (pushed account writes, or the difference a full read
 * found), without looking at the agents that did not change. `removed` are records `previous` may
 * hold (a removed record that is no longer an agent's current one changes nothing); `added` are new
 * records. Two accounts naming one mint can only come from a misbehaving node: the newer
 * `updatedAt` keeps the mint, as in a full build.
 */
export function* agentCatalogChanges(previous: AgentCatalog, added: readonly AgentRecord[], removed: readonly AgentRecord[]): SlicedWork<AgentCatalog> {
  const state = states.get(previous);
  if (!state) return yield* agentCatalogWork([...added]);
  const { base, overlay } = state;
  const currentOf = (mint: PackedKey) => (overlay.byMint.has(mint) ? (overlay.byMint.get(mint) ?? undefined) : base.byMint.get(mint));
  const out = new Set<CatalogEntry>();
  for (let i = 0; i < removed.length; i++) {
    const entry = entryOf(removed[i] as AgentRecord);
    const current = currentOf(entry);
    if (current === entry) out.add(entry);
    if ((i & 1023) === 1023) yield;
  }
  const incoming = new KeyTable<CatalogEntry, CatalogEntry>(added.length);
  for (let i = 0; i < added.length; i++) {
    const entry = entryOf(added[i] as AgentRecord);
    const rival = incoming.get(entry) ?? currentOf(entry);
    const rivalStays = rival !== undefined && !out.has(rival) && !sameAccount(rival, entry);
    if (rivalStays && updatedLater(rival, entry)) continue;
    if (rival && !incoming.has(entry) && !out.has(rival)) out.add(rival);
    incoming.set(entry, entry);
    if ((i & 127) === 127) yield;
  }
  if (out.size === 0 && incoming.size === 0) return previous;
  const size = previous.size - out.size + incoming.size;
  return yield* withChanges(state, [...out], [...incoming.valuesInOrder()], size);
}

/**
 * The next catalog from `state` with current entries `removed` (changed or gone) and entries `added`
 * (changed or new); `size` is the number of agents after. Few changes rebuild only the overlay; many
 * rebuild the base with them (merged in order, not sorted again).
 */
function* withChanges(state: State, removed: readonly CatalogEntry[], added: readonly CatalogEntry[], size: number): SlicedWork<AgentCatalog> {
  const { base, overlay } = state;
  const removedBase = new Set(overlay.removed);
  const current = new KeyTable<CatalogEntry, CatalogEntry>(overlay.added.length + added.length);
  let n = 0;
  for (const entry of overlay.added) {
    current.set(entry, entry);
    if ((++n & 1023) === 0) yield;
  }
  for (const entry of removed) {
    if (base.byMint.get(entry) === entry) removedBase.add(entry);
    else current.delete(entry);
    if ((++n & 1023) === 0) yield;
  }
  for (const entry of added) {
    current.set(entry, entry);
    if ((++n & 1023) === 0) yield;
  }
  const addedSorted = yield* sortSliced([...current.valuesInOrder()], compareEntries);
  if (removedBase.size + addedSorted.length <= Math.max(OVERLAY_MIN, size * OVERLAY_SHARE)) {
    const gone = [...removedBase].filter((entry) => !current.has(entry));
    return catalogOf({ base, overlay: yield* buildOverlay(removedBase, addedSorted, gone) });
  }
  const sorted = yield* mergedInOrder(base.sorted, removedBase, addedSorted);
  return catalogOf({ base: yield* buildBase(sorted), overlay: EMPTY_OVERLAY });
}

/** One filter's candidates: positions in the base (null: all of it) and entries of the overlay. */
type Candidates = Readonly<{ base: Positions | null; overlay: readonly CatalogEntry[] }>;

function catalogOf(state: State): AgentCatalog {
  const { base, overlay } = state;
  const { sorted } = base;
  const removed = overlay.removed;
  const sizeOf = (c: Candidates) => (c.base ? c.base.length : sorted.length) + c.overlay.length;

  // The smallest pre-sorted list that already satisfies one filter; the walk checks the rest.
  function candidates(filter: AgentFilter, queryLower: string | undefined): Candidates {
    const lists: Candidates[] = [{ base: null, overlay: overlay.added }];
    const keyed = <K>(b: ReadonlyMap<K, Positions>, o: ReadonlyMap<K, readonly CatalogEntry[]>, key: K): Candidates => ({ base: b.get(key) ?? NO_POSITIONS, overlay: o.get(key) ?? EMPTY });
    if (filter.owner !== undefined) lists.push(keyed(base.byOwner, overlay.byOwner, filter.owner));
    if (filter.categoryHash !== undefined) lists.push(keyed(base.byTag, overlay.byTag, filter.categoryHash));
    if (filter.active !== undefined) lists.push(filter.active ? { base: base.active, overlay: overlay.active } : { base: base.inactive, overlay: overlay.inactive });
    const query = queryLower === undefined ? null : queryGrams(queryLower);
    const grams = base.grams.value;
    if (query) {
      const [b, o] = query.size === 2 ? [grams?.bigrams, overlay.bigrams] : [grams?.trigrams, overlay.trigrams];
      // Until the base's lists are built (a catalog from a snapshot), the base is scanned.
      // A DENSE (null) list is scanned too: a walk of it would visit at least half the base.
      for (const gram of query.grams) lists.push({ base: b ? gramList(b, gram) : null, overlay: o.get(gram) ?? EMPTY });
    }
    return lists.reduce((a, b) => (sizeOf(b) < sizeOf(a) ? b : a));
  }

  /** Walks the base list (minus removed entries) and the overlay list together, in list order. */
  function page(request: AgentPageRequest): AgentPage {
    const queryLower = request.q?.toLowerCase();
    const { base: positions, overlay: extra } = candidates(request, queryLower);
    const matches = matcher(request, queryLower);
    const baseLength = positions ? positions.length : sorted.length;
    const baseAt = positions ? (i: number) => sorted[positions[i] as number] as Entry : (i: number) => sorted[i] as Entry;
    let i = request.after ? firstAfter(baseLength, baseAt, request.after) : 0;
    let j = request.after ? firstAfter(extra.length, (k) => extra[k] as Entry, request.after) : 0;
    const items: AgentRecord[] = [];
    let last: Entry | undefined;
    for (;;) {
      if (removed.size > 0) while (i < baseLength && removed.has(baseAt(i))) i++;
      const fromBase = i < baseLength ? baseAt(i) : undefined;
      const fromOverlay = extra[j];
      let entry: Entry;
      if (fromBase && (!fromOverlay || compareEntries(fromBase, fromOverlay) < 0)) {
        entry = fromBase;
        i++;
      } else if (fromOverlay) {
        entry = fromOverlay;
        j++;
      } else {
        return { items, nextKey: null };
      }
      if (!matches(entry)) continue;
      if (items.length === request.limit) {
        return { items, nextKey: last ? keyOf(last) : null };
      }
      items.push(entry.record);
      last = entry;
    }
  }

  const catalog: AgentCatalog = Object.freeze({
    size: sorted.length - removed.size + overlay.added.length,
    page,
    get(nftMint: string) {
      if (!packable(nftMint)) return undefined;
      const mint = packKey(nftMint);
      return overlay.byMint.has(mint) ? overlay.byMint.get(mint)?.record : base.byMint.get(mint)?.record;
    },
    ownedBy: (owner: string) => page({ owner, limit: Number.POSITIVE_INFINITY }).items,
  });
  states.set(catalog, state);
  return catalog;
}

const NO_POSITIONS: Positions = new Int32Array(0);

/** The base's list for a window: none when no URI holds it, null (scan) when it is DENSE. */
function gramList(lists: ReadonlyMap<number, Positions | null>, gram: number): Positions | null {
  const list = lists.get(gram);
  return list === undefined ? NO_POSITIONS : list;
}

type Entry = CatalogEntry;

/** Index of the first element (read through `at`) that lists strictly after `key`. */
function firstAfter(length: number, at: (i: number) => Entry, key: AgentKey): number {
  const mint = packKey(key.nftMint);
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareEntryWithKey(at(mid), key, mint) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function matcher(filter: AgentFilter, queryLower: string | undefined): (entry: Entry) => boolean {
  return (entry) =>
    (filter.owner === undefined || entry.owner === filter.owner) &&
    (filter.active === undefined || entry.active === filter.active) &&
    (filter.categoryHash === undefined || entry.tagHashes.includes(filter.categoryHash)) &&
    (queryLower === undefined || entry.uriLower.includes(queryLower));
}

function keyOf(entry: Entry): AgentKey {
  return { updatedAt: entry.updatedAt, nftMint: entry.nftMint };
}

/** The program keeps one account per mint; if a ledger ever returns two, the newer one wins. */
function* uniqueByMint(records: readonly AgentRecord[]): SlicedWork<KeyTable<Entry, Entry>> {
  const byMint = new KeyTable<Entry, Entry>(records.length);
  for (let i = 0; i < records.length; i++) {
    const entry = entryOf(records[i] as AgentRecord);
    const seen = byMint.get(entry);
    if (!seen || updatedLater(entry, seen)) byMint.set(entry, entry);
    if ((i & 1023) === 1023) yield;
  }
  return byMint;
}

/** Current entries to take out (changed or gone) and entries to put in (changed or new). */
function* changesSince(state: State, unique: KeyTable<Entry, Entry>): SlicedWork<{ removed: Entry[]; added: Entry[] }> {
  const { base, overlay } = state;
  const currentOf = (mint: PackedKey) => (overlay.byMint.has(mint) ? (overlay.byMint.get(mint) ?? undefined) : base.byMint.get(mint));
  const removed: Entry[] = [];
  const added: Entry[] = [];
  let stillThere = 0;
  let n = 0;
  for (const entry of unique.valuesInOrder()) {
    const current = currentOf(entry);
    if (current) stillThere++;
    if (current !== entry) {
      if (current) removed.push(current);
      added.push(entry);
    }
    if ((++n & 1023) === 0) yield;
  }
  if (stillThere < base.sorted.length - overlay.removed.size + overlay.added.length) {
    for (const entry of [...base.sorted, ...overlay.added]) {
      if (currentOf(entry) === entry && !unique.has(entry)) removed.push(entry);
      if ((++n & 1023) === 0) yield;
    }
  }
  return { removed, added };
}

/**
 * Whether one agent passes `filter`: the list's own test, for orders the catalog does not keep
 * (sort=payments walks agents by their owner's payments and checks each here).
 */
export function agentMatches(record: AgentRecord, filter: AgentFilter): boolean {
  return matcher(filter, filter.q?.toLowerCase())(entryOf(record));
}

/** Whether two entries are of one account (by their packed addresses when both are the index's own). */
function sameAccount(a: CatalogEntry, b: CatalogEntry): boolean {
  return a instanceof IndexedAgent && b instanceof IndexedAgent ? a.sameAccount(b) : a.record.address === b.record.address;
}
