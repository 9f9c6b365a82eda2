import {
  addCodecSizePrefix,
  fixCodecSize,
  getBytesCodec,
  getU32Codec,
  getUtf8Codec,
  type Codec,
  type FixedSizeCodec,
  type ReadonlyUint8Array,
} from "@solana/kit";

/** Anchor prefixes every account with an 8-byte discriminator (sha256("account:<Name>")[0..8]). */
export const DISCRIMINATOR_SIZE = 8;

/** Borsh `string`: u32 little-endian byte length, then UTF-8 bytes. */
export function getBorshStringCodec(): Codec<string> {
  return addCodecSizePrefix(getUtf8Codec(), getU32Codec());
}

/** Borsh `[u8; 32]`. */
export function getBytes32Codec(): FixedSizeCodec<ReadonlyUint8Array, ReadonlyUint8Array, 32> {
  return fixCodecSize(getBytesCodec(), 32);
}

/** True when `data` starts with `discriminator`. */
export function hasDiscriminator(data: ReadonlyUint8Array, discriminator: ReadonlyUint8Array): boolean {
  if (data.length < discriminator.length) return false;
  for (let i = 0; i < discriminator.length; i++) if (data[i] !== discriminator[i]) return false;
  return true;
}

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lowercase hex of a byte array (table lookup: called for every tag of every agent on refresh). */
export function toHex(bytes: ReadonlyUint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX_BYTES[bytes[i] as number];
  return out;
}
