import { getBase58Encoder, type Address, type Signature } from "@solana/kit";

/**
 * Base58 on the ledger's hot paths. kit's codec goes through a BigInt per character
 * (tens of microseconds per address); this byte-array version gives the identical text
 * and bytes (tests/ledger/base58.test.ts compares them) in a few microseconds. Anything
 * outside the alphabet is handed to kit, so errors stay kit's own.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ALPHABET_CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;

/** Bytes to base58 text, exactly as kit's `getBase58Decoder().decode`. */
export function base58Text(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian base-58 digits of the big-endian number after the leading zeros.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] ?? 0;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] ?? 0) << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  // Built from char codes in one go: a flat string hashes faster as a Map key than a rope of appends.
  const codes = new Array<number>(zeros + digits.length).fill(49, 0, zeros);
  for (let j = 0; j < digits.length; j++) codes[zeros + j] = ALPHABET_CODES[digits[digits.length - 1 - j] ?? 0] ?? 49;
  return String.fromCharCode(...codes);
}

/** Base58 text to bytes, exactly as kit's `getBase58Encoder().encode` (which throws on a bad character). */
export function base58Bytes(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  // Little-endian bytes of the number after the leading "1"s.
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (DIGIT_OF[code] ?? -1) : -1;
    if (digit < 0) return new Uint8Array(getBase58Encoder().encode(text));
    let carry = digit;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] ?? 0) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let j = 0; j < bytes.length; j++) out[zeros + j] = bytes[bytes.length - 1 - j] ?? 0;
  return out;
}

/** The base58 address of 32 raw key bytes. */
export function addressOf(bytes: Uint8Array): Address {
  return base58Text(bytes) as Address;
}

/** The base58 signature of 64 raw signature bytes. */
export function signatureOf(bytes: Uint8Array): Signature {
  return base58Text(bytes) as Signature;
}

/** Same answer as kit's `isSignature` (including its throw on a non-base58 character). */
export function isSignatureText(text: string): text is Signature {
  if (text.length < 64 || text.length > 88) return false;
  return base58Bytes(text).length === 64;
}
