import { getAddressDecoder, type Address } from "@solana/kit";

const addressDecoder = getAddressDecoder();

/**
 * 32 public-key bytes to a base58 {@link Address}, with a bounded cache: programs, mints, payees
 * and fee payers repeat across payments, and base58 encoding is the costliest part of decoding.
 */
export type AddressCache = Readonly<{ toAddress(bytes: Uint8Array): Address }>;

export function createAddressCache(capacity = 50_000): AddressCache {
  const cache = new Map<string, Address>();
  function toAddress(bytes: Uint8Array): Address {
    const key = String.fromCharCode.apply(null, Array.from(bytes));
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const address = addressDecoder.decode(bytes);
    if (cache.size >= capacity) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(key, address);
    return address;
  }
  return Object.freeze({ toAddress });
}
