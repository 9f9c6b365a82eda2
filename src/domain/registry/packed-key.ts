/**
 * A base58 address (at most 44 characters, all ASCII) as seven doubles of seven 7-bit characters
 * each, first characters in the high bits, zeros after the end. A double held in an object's field
 * is no heap cell, a string is one: at a million agents the index's address and mint strings were
 * two million cells that every full collection walked. The text comes back with `keyText`
 * (no base58 encode: the characters are the text's own), and comparing the seven words in order is
 * comparing the texts as strings (a shorter text's zeros sort before any character).
 */
export type PackedKey = Readonly<{ k0: number; k1: number; k2: number; k3: number; k4: number; k5: number; k6: number }>;

export const PACKED_KEY_WORDS = 7;
const CHARS_PER_WORD = 7;
const MAX_CHARS = PACKED_KEY_WORDS * CHARS_PER_WORD;

/** Whether `text` fits a packed key (every address does). */
export function packable(text: string): boolean {
  if (text.length > MAX_CHARS) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0 || code > 127) return false;
  }
  return true;
}

/** Word `w` (0-6) of `text` packed; `text` must be packable. */
export function packedWord(text: string, w: number): number {
  let word = 0;
  const from = w * CHARS_PER_WORD;
  for (let i = from; i < from + CHARS_PER_WORD; i++) word = word * 128 + (i < text.length ? text.charCodeAt(i) : 0);
  return word;
}

/** `text` as a packed key object (lookups by a request's text). */
export function packKey(text: string): PackedKey {
  return { k0: packedWord(text, 0), k1: packedWord(text, 1), k2: packedWord(text, 2), k3: packedWord(text, 3), k4: packedWord(text, 4), k5: packedWord(text, 5), k6: packedWord(text, 6) };
}

const codes: number[] = [];

/** The text of seven packed words. */
export function wordsText(w0: number, w1: number, w2: number, w3: number, w4: number, w5: number, w6: number): string {
  codes.length = 0;
  if (unpackWord(w0) && unpackWord(w1) && unpackWord(w2) && unpackWord(w3) && unpackWord(w4) && unpackWord(w5)) unpackWord(w6);
  return String.fromCharCode.apply(null, codes);
}

export function keyText(key: PackedKey): string {
  return wordsText(key.k0, key.k1, key.k2, key.k3, key.k4, key.k5, key.k6);
}

/** Appends the word's characters to `codes`; false when the text ended inside it. */
function unpackWord(word: number): boolean {
  let divisor = 128 ** (CHARS_PER_WORD - 1);
  for (let i = 0; i < CHARS_PER_WORD; i++) {
    const code = Math.floor(word / divisor);
    if (code === 0) return false;
    codes.push(code);
    word -= code * divisor;
    divisor /= 128;
  }
  return true;
}

/** The texts' string order: negative when `a` < `b`, 0 when equal. */
export function compareKeys(a: PackedKey, b: PackedKey): number {
  if (a.k0 !== b.k0) return a.k0 < b.k0 ? -1 : 1;
  if (a.k1 !== b.k1) return a.k1 < b.k1 ? -1 : 1;
  if (a.k2 !== b.k2) return a.k2 < b.k2 ? -1 : 1;
  if (a.k3 !== b.k3) return a.k3 < b.k3 ? -1 : 1;
  if (a.k4 !== b.k4) return a.k4 < b.k4 ? -1 : 1;
  if (a.k5 !== b.k5) return a.k5 < b.k5 ? -1 : 1;
  if (a.k6 !== b.k6) return a.k6 < b.k6 ? -1 : 1;
  return 0;
}

export function sameKey(a: PackedKey, b: PackedKey): boolean {
  return a.k0 === b.k0 && a.k1 === b.k1 && a.k2 === b.k2 && a.k3 === b.k3 && a.k4 === b.k4 && a.k5 === b.k5 && a.k6 === b.k6;
}

/** A 32-bit hash of the key (its words mixed; the first ones alone differ for nearly every address). */
export function keyHash(key: PackedKey): number {
  let h = 0x811c9dc5;
  h = Math.imul(h ^ (key.k0 % 0x40000000), 0x01000193);
  h = Math.imul(h ^ Math.floor(key.k0 / 0x40000000), 0x01000193);
  h = Math.imul(h ^ (key.k1 % 0x40000000), 0x01000193);
  h = Math.imul(h ^ Math.floor(key.k1 / 0x40000000), 0x01000193);
  h = Math.imul(h ^ (key.k2 % 0x40000000), 0x01000193);
  h = Math.imul(h ^ (key.k3 % 0x40000000), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}
