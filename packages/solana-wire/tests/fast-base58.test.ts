// Pure: the hand-written base58 kept for speed (the service's bench/codecs.ts measures the gap)
// against kit's own codec, on random inputs.
import { describe, expect, it } from "bun:test";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { base58Bytes, base58Text } from "../src/fast-base58.ts";

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
