// Pure: the address cache kept for speed (bench/codecs.ts measures the gap) against kit's own
// address decoder, on random keys.
import { describe, expect, it } from "bun:test";
import { getAddressDecoder } from "@solana/kit";
import { createAddressCache } from "../../../src/domain/transaction/address-cache.ts";

/** A random key; every tenth starts with zero bytes, which base58 writes as leading "1"s. */
function randomKey(i: number): Uint8Array {
  const key = crypto.getRandomValues(new Uint8Array(32));
  if (i % 10 === 0) key.fill(0, 0, 1 + (i % 4));
  return key;
}

describe("address cache matches kit's address decoder (kit codecs)", () => {
  it("gives kit's address for random keys, on a miss, on a hit and after eviction", () => {
    const cache = createAddressCache(64);
    const decoder = getAddressDecoder();
    const keys = Array.from({ length: 200 }, (_, i) => randomKey(i));
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
