import { combineCodec, createDecoder, getAddressEncoder, type Address, type FixedSizeCodec, type FixedSizeDecoder } from "@solana/kit";
import { base58Bytes, base58Text } from "@x84/solana-wire";

const ADDRESS_SIZE = 32;

/**
 * kit's address decoder goes through BigInt and costs about twice as much per address as the
 * fast base58 (bench/codecs.ts): with three addresses per account that dominated a
 * 10,000-account refresh.
 */
export function getFastAddressDecoder(): FixedSizeDecoder<Address, 32> {
  return createDecoder({
    fixedSize: ADDRESS_SIZE,
    read(bytes, offset) {
      if (bytes.length - offset < ADDRESS_SIZE) throw new RangeError(`address needs ${ADDRESS_SIZE} bytes at offset ${offset}`);
      return [base58Text(bytes, offset, ADDRESS_SIZE) as Address, offset + ADDRESS_SIZE];
    },
  });
}

/** kit's address encoder with the fast decoder: a drop-in for getAddressCodec() in account layouts. */
export function getFastAddressCodec(): FixedSizeCodec<Address, Address, 32> {
  return combineCodec(getAddressEncoder(), getFastAddressDecoder());
}

/**
 * Exactly kit's `isAddress` (32-44 characters of base58 text that decode to 32 bytes) without its
 * BigInt arithmetic: kit's check made ~290 BigInt cells per call, and the registry checks an
 * address on every detail, owner filter and cursor request, garbage the collector then walked.
 */
export function isBase58Address(text: string): text is Address {
  if (text.length < 32 || text.length > 44) return false;
  try {
    return base58Bytes(text).length === ADDRESS_SIZE;
  } catch {
    return false; // a character outside the alphabet (base58Bytes hands those to kit, which throws)
  }
}
