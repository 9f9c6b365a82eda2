// Pure: the hand-written fast paths kept for speed (bench/codecs.ts measures the gap) against
// kit's own codecs, on random inputs.
import { describe, expect, it } from "bun:test";
import { getAddressDecoder, getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { base58Bytes, base58Text } from "../../src/domain/codecs/fast-base58.ts";
import { createAddressCache } from "../../src/domain/transaction/address-cache.ts";

function randomBytes(length: number, i: number): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  bytes.fill(0, 0, Math.min(length, i % 4));
  if (i % 101 === 0) bytes.fill(0);
  if (i % 103 === 0) bytes.fill(0xff);
  return bytes;
}

describe("fast base58 matches kit's base58 codec (kit codecs)", () => {
  it("gives kit's text for random bytes of every length up to 64, and kit's bytes back", () => {
    const kitText = getBase58Decoder();
    const kitBytes = getBase58Encoder();
    for (let i = 0; i < 4000; i++) {
      const bytes = randomBytes(i % 65, i);
      const text = kitText.decode(bytes);
      expect(base58Text(bytes)).toBe(text);
      expect(base58Bytes(text)).toEqual(new Uint8Array(kitBytes.encode(text)));
    }
  });

  it("reads a window of a larger buffer exactly as kit reads the copied window", () => {
    const kitText = getBase58Decoder();
    for (let i = 0; i < 1000; i++) {
      const buffer = randomBytes(100, i);
      const offset = i % 37;
      const length = i % 64;
      expect(base58Text(buffer, offset, length)).toBe(kitText.decode(buffer.slice(offset, offset + length)));
    }
  });

  it("leaves text outside the alphabet to kit, which throws", () => {
    expect(() => getBase58Encoder().encode("0OIl")).toThrow();
    expect(() => base58Bytes("0OIl")).toThrow();
  });
});

describe("address cache matches kit's address decoder (kit codecs)", () => {
  it("gives kit's address for random keys, on a miss, on a hit and after eviction", () => {
    const cache = createAddressCache(64);
    const decoder = getAddressDecoder();
    const keys = Array.from({ length: 200 }, (_, i) => randomBytes(32, i));
    for (let round = 0; round < 3; round++) {
      for (const key of keys) expect(cache.toAddress(key)).toBe(decoder.decode(key));
    }
  });

  it("refuses a key that is not 32 bytes, as kit does", () => {
    const cache = createAddressCache();
    expect(() => getAddressDecoder().decode(new Uint8Array(31))).toThrow();
    expect(() => cache.toAddress(new Uint8Array(31))).toThrow();
  });
});
