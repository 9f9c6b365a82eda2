import { bytesToHex } from "@noble/hashes/utils.js";
import {
  addCodecSizePrefix,
  combineCodec,
  createDecoder,
  fixCodecSize,
  getArrayCodec,
  getBooleanCodec,
  getBytesCodec,
  getI64Codec,
  getLiteralUnionCodec,
  getNullableCodec,
  getU16Codec,
  getU32Codec,
  getU64Encoder,
  getU8Codec,
  getUtf8Codec,
  type Codec,
  type FixedSizeCodec,
  type FixedSizeDecoder,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getFastAddressCodec } from "./fast-address-codec.ts";

/*
 * The Borsh types of the registry IDL as kit codecs, one name per IDL type, so an account layout
 * reads like the IDL (`nftMint: pubkey`). Codecs are stateless: one instance serves every layout.
 */
export const u8 = getU8Codec();
export const u16 = getU16Codec();
export const i64 = getI64Codec();
export const bool = getBooleanCodec();
/** Base58 by the fast decoder: three per AgentIdentity, decoded 100,000 at a time on refresh. */
export const pubkey = getFastAddressCodec();
/** `string`: u32 little-endian byte length, then UTF-8 bytes. */
export const string: Codec<string> = addCodecSizePrefix(getUtf8Codec(), getU32Codec());
export const bytes32: FixedSizeCodec<ReadonlyUint8Array, ReadonlyUint8Array, 32> = fixCodecSize(getBytesCodec(), 32);
export const bytes64: FixedSizeCodec<ReadonlyUint8Array, ReadonlyUint8Array, 64> = fixCodecSize(getBytesCodec(), 64);
/** `Vec<T>`: u32 little-endian count, then the items. */
export const vec = <TFrom, TTo extends TFrom>(item: Codec<TFrom, TTo>) => getArrayCodec(item, { size: getU32Codec() });
/** `Option<T>`: one tag byte, then the value when it is 1. */
export const option = <TFrom, TTo extends TFrom>(item: Codec<TFrom, TTo>) => getNullableCodec(item);
/** A fieldless enum: its variant index as one byte; an unknown index fails the decode. */
export const enumOf = <const TVariants extends readonly string[]>(variants: TVariants) => getLiteralUnionCodec(variants);

/** True when `data` starts with `discriminator`. */
export function hasDiscriminator(data: ReadonlyUint8Array, discriminator: ReadonlyUint8Array): boolean {
  if (data.length < discriminator.length) return false;
  for (let i = 0; i < discriminator.length; i++) if (data[i] !== discriminator[i]) return false;
  return true;
}

/**
 * Lowercase hex of a byte array, for kit's read-only bytes. noble's bytesToHex uses the runtime's
 * native toHex: about twice the speed of a lookup table, and it runs for every tag of every agent on refresh.
 */
export function toHex(bytes: ReadonlyUint8Array): string {
  return bytesToHex(bytes as Uint8Array);
}

/** Counters are mostly small: values below this decode to one shared bigint each. */
const SHARED_U64_LIMIT = 1024;
const SHARED_U64 = Array.from({ length: SHARED_U64_LIMIT }, (_, i) => BigInt(i));

/**
 * kit's u64 decoder with small values shared: a decoded agent holds seven counters, usually 0 or
 * a few, and every bigint is its own heap object (about 0.7 million at 100,000 agents without this).
 */
export function getSharedU64Decoder(): FixedSizeDecoder<bigint, 8> {
  return createDecoder({
    fixedSize: 8,
    read(bytes, offset) {
      if (bytes.length - offset < 8) throw new RangeError(`u64 needs 8 bytes at offset ${offset}`);
      const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 8);
      const low = view.getUint32(0, true);
      const value = view.getUint32(4, true) === 0 && low < SHARED_U64_LIMIT ? (SHARED_U64[low] as bigint) : view.getBigUint64(0, true);
      return [value, offset + 8];
    },
  });
}

/** kit's u64 encoder with the sharing decoder: a drop-in for getU64Codec() in account layouts. */
export function getSharedU64Codec(): FixedSizeCodec<number | bigint, bigint, 8> {
  return combineCodec(getU64Encoder(), getSharedU64Decoder());
}

/** `u64`, with small values shared (see getSharedU64Decoder). */
export const u64 = getSharedU64Codec();
