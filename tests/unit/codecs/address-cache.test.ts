// Pure: the address cache kept for speed (bench/codecs.ts measures the gap) against kit's own
// address decoder, on random keys.
import { describe, expect, it } from "bun:test";
import { getAddressDecoder } from "@solana/kit";
import { createAddressCache } from "../../../src/domain/transaction/address-cache.ts";

/**
 * A random key, with the edges base58 treats specially: three in four start with zero bytes
 * (written as leading "1"s), and some are all zeros (the System program, "111…1") or all 0xff.
 */
function randomKey(i: number): Uint8Array {
  const key = crypto.getRandomValues(new Uint8Array(32));
  key.fill(0, 0, i % 4);
  if (i % 101 === 0) key.fill(0);
  if (i % 103 === 0) key.fill(0xff);
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
