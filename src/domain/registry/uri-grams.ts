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

/** Window lists by window key; each list holds positions, ascending. */
export type GramPostings = Map<number, Int32Array<ArrayBuffer>>;

/**
 * The base's window lists over `texts` (position i is texts[i]), each list the ascending positions
 * whose text holds that window, once each. Two passes into one Int32Array instead of a growing
 * array per window: at 100,000 agents the windows are ~4 million per size, and pushing them into
 * JS arrays (8 bytes an element, with growth slack, then copied to typed arrays) left ~100 MB of
 * garbage per build, which the process kept as RSS. Windows of ASCII code units (nearly all of a
 * URI) are found through a direct table rather than a Map lookup: this is the hot loop of a build.
 */
export function* gramPostings(texts: readonly string[], size: GramKind): SlicedWork<GramPostings> {
  // Pass 1: each text's distinct windows as ids (first seen, first numbered) and each id's count,
  // into one Int32Array per group of texts: one array of every window (16 MB at 100,000 agents) was
  // one allocation that, with the collection it set off, held the event loop for 10-20 ms.
  const groups: Int32Array[] = [];
  const ends = new Int32Array(texts.length);
  const slots = new Int32Array(1 << (7 * size));
  const others = new Map<number, number>();
  const keys: number[] = [];
  let counts: Int32Array<ArrayBuffer> = new Int32Array(1024);
  let lastText: Int32Array<ArrayBuffer> = new Int32Array(1024).fill(-1);
  let written = 0;
  for (let first = 0; first < texts.length; first += GROUP) {
    const last = Math.min(texts.length, first + GROUP);
    let bound = 0;
    for (let position = first; position < last; position++) bound += Math.max(0, (texts[position] as string).length - size + 1);
    const ids = new Int32Array(bound);
    groups.push(ids);
    let inGroup = 0;
    let sinceYield = 0;
    for (let position = first; position < last; position++) {
      const text = texts[position] as string;
      for (let at = 0; at + size <= text.length; at++) {
        const a = text.charCodeAt(at);
        const b = text.charCodeAt(at + 1);
        const c = size === 3 ? text.charCodeAt(at + 2) : 0;
        let id: number;
        if ((a | b | c) < 128) {
          const slot = size === 3 ? (a << 14) | (b << 7) | c : (a << 7) | b;
          id = (slots[slot] as number) - 1;
          if (id < 0) {
            id = keys.push(gramAt(text, at, size)) - 1;
            slots[slot] = id + 1;
          }
        } else {
          const key = gramAt(text, at, size);
          const known = others.get(key);
          if (known === undefined) others.set(key, (id = keys.push(key) - 1));
          else id = known;
        }
        if (id >= counts.length) [counts, lastText] = [grown(counts, 0), grown(lastText, -1)];
        if (lastText[id] === position) continue;
        lastText[id] = position;
        counts[id] = (counts[id] as number) + 1;
        ids[inGroup++] = id;
      }
      ends[position] = inGroup;
      // By windows, not texts: a step is about the same work whatever the URIs' lengths.
      sinceYield += text.length;
      if (sinceYield >= WINDOWS_PER_STEP) {
        sinceYield = 0;
        yield;
      }
    }
    written += inGroup;
    yield;
  }
  // Pass 2: every id's run in one array, filled in position order (so each run is ascending).
  const starts = new Int32Array(keys.length + 1);
  for (let id = 0; id < keys.length; id++) starts[id + 1] = (starts[id] as number) + (counts[id] as number);
  const next = starts.slice(0, keys.length);
  yield;
  const positions = new Int32Array(written);
  yield;
  for (let group = 0; group < groups.length; group++) {
    const ids = groups[group] as Int32Array;
    const first = group * GROUP;
    const last = Math.min(texts.length, first + GROUP);
    let from = 0;
    for (let position = first; position < last; position++) {
      const end = ends[position] as number;
      for (let k = from; k < end; k++) {
        const id = ids[k] as number;
        positions[next[id] as number] = position;
        next[id] = (next[id] as number) + 1;
      }
      from = end;
      if ((position & 511) === 511) yield;
    }
    // The group's ids are not needed past here.
    groups[group] = EMPTY_IDS;
  }
  const postings: GramPostings = new Map();
  for (let id = 0; id < keys.length; id++) {
    postings.set(keys[id] as number, positions.subarray(starts[id] as number, starts[id + 1] as number));
    if ((id & 1023) === 1023) yield;
  }
  return postings;
}

/** Texts whose windows share one array of ids in pass 1. */
const GROUP = 4096;
/** Code units of URIs between two pauses of pass 1 (a few thousand windows: well under a millisecond). */
const WINDOWS_PER_STEP = 8192;
const EMPTY_IDS = new Int32Array(0);

function grown(array: Int32Array<ArrayBuffer>, fill: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(array.length * 2).fill(fill);
  out.set(array);
  return out;
}
