import { describe, expect, test } from "bun:test";
import { finishNow } from "../../../src/domain/registry/sliced-work.ts";
import { gramAt, gramPostings, type GramKind } from "../../../src/domain/registry/uri-grams.ts";

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
      for (const [key, positions] of expected) expect([...(postings.get(key) ?? [])]).toEqual(positions);
    }
  });
});
