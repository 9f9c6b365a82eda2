import { getBase58Encoder, type ReadonlyUint8Array } from "@solana/kit";

/**
 * Base58 for the hot paths (registry account decoding, the embedded ledger's keys and
 * signatures, the facilitator's signatures and new keys). kit's codec goes through a BigInt per
 * character; these carries over plain numbers (limbs of 58^5 for text, bytes for bytes) give the
 * identical text and bytes several times faster (the facilitator's bench/codecs.ts measures the gap;
 * tests/fast-base58.test.ts compares both directions with kit on random inputs).
 * Text outside the alphabet is handed to kit, so errors stay kit's own.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ALPHABET_CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ONE = 49;
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;

/** 58^5 < 2^30: a limb times 2^16 plus a carry stays below 2^53, exact in a double. */
const LIMB = 58 ** 5;
const DIGITS_PER_LIMB = 5;

/**
 * `length` bytes from `offset` to base58 text, exactly as kit's `getBase58Decoder().decode`. The
 * number is kept in limbs of 58^5 and fed two bytes at a time, so a 64-byte signature takes about
 * 300 multiply-adds instead of a byte-digit carry's 5,000 (3-4 times faster than that carry, which
 * was 8 % of the embedded ledger's CPU under /verify load).
 */
export function base58Text(bytes: ReadonlyUint8Array, offset = 0, length = bytes.length - offset): string {
  const end = offset + length;
  let zeros = 0;
  while (zeros < length && bytes[offset + zeros] === 0) zeros++;
  // Little-endian limbs of the big-endian number after the leading zeros (one byte first when
  // the count left is odd, then pairs).
  const limbs: number[] = [];
  let i = offset + zeros;
  while (i < end) {
    const pair = (end - i) % 2 === 0;
    let carry = pair ? (bytes[i] as number) * 256 + (bytes[i + 1] as number) : (bytes[i] as number);
    const factor = pair ? 65_536 : 256;
    i += pair ? 2 : 1;
    for (let j = 0; j < limbs.length; j++) {
      const value = (limbs[j] as number) * factor + carry;
      carry = Math.floor(value / LIMB);
      limbs[j] = value - carry * LIMB;
    }
    while (carry > 0) {
      const next = Math.floor(carry / LIMB);
      limbs.push(carry - next * LIMB);
      carry = next;
    }
  }
  // Digits least significant first: five per limb, except the top limb, which stops at its last
  // non-zero digit; then the leading zeros' "1"s.
  const codes: number[] = [];
  for (let j = 0; j < limbs.length; j++) {
    let limb = limbs[j] as number;
    const top = j === limbs.length - 1;
    for (let d = 0; d < DIGITS_PER_LIMB && (!top || limb > 0); d++) {
      const next = Math.floor(limb / 58);
      codes.push(ALPHABET_CODES[limb - next * 58] as number);
      limb = next;
    }
  }
  for (let z = 0; z < zeros; z++) codes.push(ONE);
  // One flat string from char codes: appending a character at a time builds a rope the engine
  // keeps (about 2 KB per address) until something flattens it, and a rope hashes slower as a Map key.
  return String.fromCharCode(...codes.reverse());
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
