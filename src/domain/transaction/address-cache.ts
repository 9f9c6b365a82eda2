import { getAddressDecoder, type Address } from "@solana/kit";
import { base58Text } from "@x84/solana-wire";

const addressDecoder = getAddressDecoder();

/**
 * 32 public-key bytes to a base58 {@link Address}, with a bounded cache: programs, mints, payees
 * and fee payers repeat across payments, and base58 encoding is the costliest part of decoding.
 */
export type AddressCache = Readonly<{ toAddress(bytes: Uint8Array): Address }>;

export function createAddressCache(capacity = 50_000): AddressCache {
  const cache = new Map<string, Address>();
  function toAddress(bytes: Uint8Array): Address {
    // Only 32-byte keys are cached; anything else is decoded (and refused) by kit as before.
    if (bytes.length !== 32) return addressDecoder.decode(bytes);
    const key = cacheKeyOf(bytes);
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    // 32 bytes are always an address: kit's decoder would only add a slower base58.
    const address = base58Text(bytes) as Address;
    if (cache.size >= capacity) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(key, address);
    return address;
  }
  return Object.freeze({ toAddress });
}

/**
 * An injective string key for 32 bytes: two bytes per UTF-16 code unit. Unrolled because it runs
 * for every account of every payment (the generic Array.from version cost several microseconds
 * per transaction).
 */
function cacheKeyOf(b: Uint8Array): string {
  return String.fromCharCode(
    (b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!, (b[4]! << 8) | b[5]!, (b[6]! << 8) | b[7]!,
    (b[8]! << 8) | b[9]!, (b[10]! << 8) | b[11]!, (b[12]! << 8) | b[13]!, (b[14]! << 8) | b[15]!,
    (b[16]! << 8) | b[17]!, (b[18]! << 8) | b[19]!, (b[20]! << 8) | b[21]!, (b[22]! << 8) | b[23]!,
    (b[24]! << 8) | b[25]!, (b[26]! << 8) | b[27]!, (b[28]! << 8) | b[29]!, (b[30]! << 8) | b[31]!,
  );
}
