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
