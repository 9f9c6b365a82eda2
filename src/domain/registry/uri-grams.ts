import type { SlicedWork } from "./sliced-work.ts";

/**
 * The n-grams that make `q` (case-insensitive substring of metadataUri) an index lookup instead
 * of a scan: every 2- and 3-code-unit window of the lower-cased URI. If the lower-cased query
 * occurs in a lower-cased URI, each of its windows occurs there too, so the URIs holding the
 * query's rarest window are a superset of the matches, in which the substring test then decides.
 * Windows are UTF-16 code units, the same units `String.prototype.includes` compares.
 *
 * A window is a number, not a string (three code units fit in 48 bits, exact in a double), so
 * indexing allocates nothing per window.
 */
export type GramKind = 2 | 3;

export function gramAt(text: string, at: number, size: GramKind): number {
  const pair = text.charCodeAt(at) * 65_536 + text.charCodeAt(at + 1);
  return size === 2 ? pair : pair * 65_536 + text.charCodeAt(at + 2);
}

/** Distinct windows of `size` in `text`. */
export function distinctGrams(text: string, size: GramKind): Set<number> {
  const grams = new Set<number>();
  for (let at = 0; at + size <= text.length; at++) grams.add(gramAt(text, at, size));
  return grams;
}

/**
 * The windows to look up for a lower-cased query: its one bigram when it has two code units, its
 * trigrams when longer, none when shorter (such a query is answered by scanning).
 */
export function queryGrams(queryLower: string): Readonly<{ size: GramKind; grams: readonly number[] }> | null {
  if (queryLower.length < 2) return null;
  const size: GramKind = queryLower.length === 2 ? 2 : 3;
  return { size, grams: [...distinctGrams(queryLower, size)] };
}

/**
 * A window's list: the ascending positions whose text holds it, once each; or DENSE when more than
 * half the texts hold it. Such a list is not kept: walking it would visit at least half the base, and
 * scanning the whole base (which the substring test then filters) visits at most twice as many, so a
 * query is answered from its rarer windows or by a scan. At 1,000,000 URIs sharing a scheme, a host
 * and a path (`https://agents.example/<n>/agent-card.json`) most windows are in every URI: keeping
 * their lists took ~300 MB of the ~320 MB of positions.
 */
export const DENSE = null;
export type GramList = Int32Array<ArrayBuffer> | typeof DENSE;

/** Window lists by window key; a key that is absent is in no text. */
export type GramPostings = Map<number, GramList>;

/**
 * The base's window lists over `texts` (position i is texts[i]). Two passes over the texts, the
 * first counting each window's texts, the second writing the positions of the lists that are kept
 * straight into them: no array of every window (~40 million at 1,000,000 agents, 160 MB) is held
 * between the passes, only the lists. The lists are cut from buffers of `chunk` positions (a longer
 * list gets its own), so no step allocates more than that (one large allocation, with the collection
 * it set off, held the event loop for 10-20 ms), and one buffer per list would cost a header per
 * list. Windows of ASCII code units (nearly all of a URI) are found through a direct table rather
 * than a Map lookup: this is the hot loop of a build.
 */
export function* gramPostings(texts: readonly string[], size: GramKind, chunk = CHUNK): SlicedWork<GramPostings> {
  const ids = new GramIds(size);
  let counts: Int32Array<ArrayBuffer> = new Int32Array(1024);
  let lastText: Int32Array<ArrayBuffer> = new Int32Array(1024).fill(-1);
  // Pass 1: each window's count of texts (first seen, first numbered).
  let sinceYield = 0;
  for (let position = 0; position < texts.length; position++) {
    const text = texts[position] as string;
    for (let at = 0; at + size <= text.length; at++) {
      const id = ids.idAt(text, at, true);
      if (id >= counts.length) [counts, lastText] = [grown(counts, 0), grown(lastText, -1)];
      if (lastText[id] === position) continue;
      lastText[id] = position;
      counts[id] = (counts[id] as number) + 1;
    }
    // By windows, not texts: a step is about the same work whatever the URIs' lengths.
    sinceYield += text.length;
    if (sinceYield >= WINDOWS_PER_STEP) {
      sinceYield = 0;
      yield;
    }
  }
  // The kept lists, cut from buffers of `chunk` positions (a longer list gets its own).
  const lists: GramList[] = [];
  const dense = texts.length / 2;
  let unplaced = 0;
  for (let id = 0; id < ids.size; id++) if ((counts[id] as number) <= dense) unplaced += counts[id] as number;
  let buffer = new Int32Array(0);
  let used = 0;
  for (let id = 0; id < ids.size; id++) {
    const count = counts[id] as number;
    if (count > dense) {
      lists.push(DENSE);
      continue;
    }
    if (used + count > buffer.length) {
      buffer = new Int32Array(Math.max(count, Math.min(chunk, unplaced)));
      used = 0;
      yield;
    }
    lists.push(buffer.subarray(used, used + count));
    used += count;
    unplaced -= count;
  }
  // Pass 2: the positions, in position order (so each list is ascending); `counts` becomes each
  // list's fill.
  counts.fill(0);
  lastText.fill(-1);
  yield;
  for (let position = 0; position < texts.length; position++) {
    const text = texts[position] as string;
    for (let at = 0; at + size <= text.length; at++) {
      const id = ids.idAt(text, at, false);
      const list = lists[id];
      if (!list || lastText[id] === position) continue;
      lastText[id] = position;
      list[counts[id] as number] = position;
      counts[id] = (counts[id] as number) + 1;
    }
    sinceYield += text.length;
    if (sinceYield >= WINDOWS_PER_STEP) {
      sinceYield = 0;
      yield;
    }
  }
  const postings: GramPostings = new Map();
  for (let id = 0; id < ids.size; id++) {
    postings.set(ids.keyOf(id), lists[id] as GramList);
    if ((id & 1023) === 1023) yield;
  }
  return postings;
}

/** Numbers windows as they are first seen, so per-window counts and lists are arrays. */
class GramIds {
  private readonly slots: Int32Array;
  private readonly others = new Map<number, number>();
  private readonly keys: number[] = [];

  constructor(private readonly gramSize: GramKind) {
    this.slots = new Int32Array(1 << (7 * gramSize));
  }

  get size(): number {
    return this.keys.length;
  }

  keyOf(id: number): number {
    return this.keys[id] as number;
  }

  /** The id of the window at `at` in `text`, numbered now if new (only asked with `add` in pass 1). */
  idAt(text: string, at: number, add: boolean): number {
    const size = this.gramSize;
    const a = text.charCodeAt(at);
    const b = text.charCodeAt(at + 1);
    const c = size === 3 ? text.charCodeAt(at + 2) : 0;
    if ((a | b | c) < 128) {
      const slot = size === 3 ? (a << 14) | (b << 7) | c : (a << 7) | b;
      const id = (this.slots[slot] as number) - 1;
      if (id >= 0 || !add) return id;
      this.slots[slot] = this.keys.push(gramAt(text, at, size));
      return this.keys.length - 1;
    }
    const key = gramAt(text, at, size);
    const known = this.others.get(key);
    if (known !== undefined || !add) return known ?? -1;
    this.others.set(key, this.keys.length);
    return this.keys.push(key) - 1;
  }
}

/** Code units of URIs between two pauses of a pass (a few thousand windows: well under a millisecond). */
const WINDOWS_PER_STEP = 8192;
/** Positions per buffer of lists (4 MB). */
const CHUNK = 1 << 20;

function grown(array: Int32Array<ArrayBuffer>, fill: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(array.length * 2).fill(fill);
  out.set(array);
  return out;
}
