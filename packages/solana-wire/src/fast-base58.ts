import { getBase58Encoder, type ReadonlyUint8Array } from "@solana/kit";

/**
 * Base58 for the hot paths (registry account decoding, the embedded ledger's keys and
 * signatures). kit's codec goes through a BigInt per character; this byte-array carry gives the
 * identical text and bytes several times faster (the facilitator's bench/codecs.ts measures the gap;
 * tests/fast-base58.test.ts compares both directions with kit on random inputs).
 * Text outside the alphabet is handed to kit, so errors stay kit's own.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ALPHABET_CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ONE = 49;
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;

/** `length` bytes from `offset` to base58 text, exactly as kit's `getBase58Decoder().decode`. */
export function base58Text(bytes: ReadonlyUint8Array, offset = 0, length = bytes.length - offset): string {
  const end = offset + length;
  let zeros = 0;
  while (zeros < length && bytes[offset + zeros] === 0) zeros++;
  // Little-endian base-58 digits of the big-endian number after the leading zeros (log 256 / log 58 < 1.37).
  const digits = new Uint8Array(Math.ceil(length * 1.37) + 1);
  let count = 0;
  for (let i = offset + zeros; i < end; i++) {
    let carry = bytes[i] as number;
    for (let j = 0; j < count; j++) {
      carry += (digits[j] as number) << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits[count++] = carry % 58;
      carry = (carry / 58) | 0;
    }
  }
  // One flat string from char codes: appending a character at a time builds a rope the engine
  // keeps (about 2 KB per address) until something flattens it, and a rope hashes slower as a Map key.
  const codes = new Array<number>(zeros + count).fill(ONE, 0, zeros);
  for (let j = 0; j < count; j++) codes[zeros + j] = ALPHABET_CODES[digits[count - 1 - j] as number] as number;
  return String.fromCharCode(...codes);
}

/** Base58 text to bytes, exactly as kit's `getBase58Encoder().encode` (which throws on a bad character). */
export function base58Bytes(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === ONE) zeros++;
  // Little-endian bytes of the number after the leading "1"s.
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (DIGIT_OF[code] as number) : -1;
    if (digit < 0) return new Uint8Array(getBase58Encoder().encode(text));
    let carry = digit;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let j = 0; j < bytes.length; j++) out[zeros + j] = bytes[bytes.length - 1 - j] as number;
  return out;
}
