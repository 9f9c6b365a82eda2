// Pure: the ledger's address check against kit's isAddress, which it replaces on the JSON-RPC hot path.
import { describe, expect, it } from "bun:test";
import { getBase58Decoder, isAddress } from "@solana/kit";
import { isAddressText } from "../src/base58.ts";

describe("isAddressText answers as kit's isAddress (kit codecs)", () => {
  const text = getBase58Decoder();
  it("for base58 of random bytes of every length near 32, and edits of them", () => {
    for (let i = 0; i < 3000; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(28 + (i % 9)));
      bytes.fill(0, 0, i % 3);
      const candidate = text.decode(bytes);
      expect(isAddressText(candidate)).toBe(isAddress(candidate));
      // A character outside the alphabet, a truncation, an extra character.
      for (const edited of [candidate.slice(0, -1) + "0", candidate.slice(1), candidate + "z", "1" + candidate]) {
        expect(isAddressText(edited)).toBe(isAddress(edited));
      }
    }
  });

  it("for empty, short, long and non-ASCII text", () => {
    for (const candidate of ["", "1", "1".repeat(31), "1".repeat(32), "1".repeat(44), "z".repeat(44), "z".repeat(45), "é".repeat(40), "11111111111111111111111111111111\u0000"]) {
      expect(isAddressText(candidate)).toBe(isAddress(candidate));
    }
  });
});
