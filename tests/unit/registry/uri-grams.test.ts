import { describe, expect, test } from "bun:test";
import { finishNow } from "../../../src/domain/registry/sliced-work.ts";
import { DENSE, gramAt, gramPostings, type GramKind } from "../../../src/domain/registry/uri-grams.ts";

/** A small deterministic generator (xorshift), so a failure repeats. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

/** The lists by definition: for each window, the ascending positions of the texts holding it, once each. */
function naive(texts: readonly string[], size: GramKind): Map<number, number[]> {
  const lists = new Map<number, number[]>();
  texts.forEach((text, position) => {
    for (let at = 0; at + size <= text.length; at++) {
      const key = gramAt(text, at, size);
      const list = lists.get(key) ?? [];
      if (list[list.length - 1] !== position) list.push(position);
      lists.set(key, list);
    }
  });
  return lists;
}

const PARTS = ["https://", "agents.", "example", "/", "agent-card", ".json", "é", "ü", "😀", "Ω", "a", "bb", ""];

describe("the q lists' postings", () => {
  test("over 10,000 URIs (three groups of ids, ASCII and not, empty and one-character ones) equal the lists by definition", () => {
    const next = random(26);
    const texts = Array.from({ length: 10_000 }, (_, n) => {
      const parts = Array.from({ length: Math.floor(next() * 6) }, () => PARTS[Math.floor(next() * PARTS.length)] as string);
      return (parts.join("") + (n % 3 === 0 ? String(n) : "")).toLowerCase();
    });
    for (const size of [2, 3] as const) {
      const postings = finishNow(gramPostings(texts, size));
      const expected = naive(texts, size);
      expect(postings.size).toBe(expected.size);
      // Held by more than half the texts: no list (DENSE), `q` scans; every other list exactly.
      for (const [key, positions] of expected) {
        const list = postings.get(key);
        if (positions.length > texts.length / 2) expect(list).toBe(DENSE);
        else expect(list ? [...list] : list).toEqual(positions);
      }
    }
  });

  test("lists of every size around the dense line and the buffers' bounds are exact (URIs like the benches')", () => {
    // Every URI holds the scheme and the host (dense); a digit window is in 1/10 or fewer of them;
    // `half` is in exactly half (kept) and `most` in one more than half (dense).
    const count = 3_001;
    const texts = Array.from({ length: count }, (_, n) => `https://agents.example/${n}/agent-card.json${n % 2 ? "half" : ""}${n <= count / 2 ? "most" : ""}`);
    // Buffers of 1,000 positions: lists share them, a list of 1,500 gets its own.
    for (const size of [2, 3] as const) {
      const postings = finishNow(gramPostings(texts, size, 1_000));
      const expected = naive(texts, size);
      expect(postings.size).toBe(expected.size);
      let dense = 0;
      for (const [key, positions] of expected) {
        const list = postings.get(key);
        if (positions.length > count / 2) {
          expect(list).toBe(DENSE);
          dense++;
        } else expect(list ? [...list] : list).toEqual(positions);
      }
      expect(dense).toBeGreaterThan(10);
      expect(postings.get(gramAt("half", 0, size))?.length).toBe(1_500);
      expect(postings.get(gramAt("most", 0, size))).toBe(DENSE);
    }
  });
});
