import type { Address, Signature } from "@solana/kit";
import { base58Bytes, base58Text } from "@x84/solana-wire";

/** The ledger's keys and signatures through @x84/solana-wire's fast base58 (same text as kit's codec). */
export { base58Bytes, base58Text };

/** The base58 address of 32 raw key bytes. */
export function addressOf(bytes: Uint8Array): Address {
  return base58Text(bytes) as Address;
}

/** The base58 signature of 64 raw signature bytes. */
export function signatureOf(bytes: Uint8Array): Signature {
  return base58Text(bytes) as Signature;
}

/** Same answer as kit's `isSignature` (including its throw on a non-base58 character). */
export function isSignatureText(text: string): text is Signature {
  if (text.length < 64 || text.length > 88) return false;
  return base58Bytes(text).length === 64;
}

/**
 * Same answer as kit's `isAddress` (32-44 characters of base58 spelling 32 bytes), without its
 * BigInt per character: simulateTransaction's `accounts` addresses went through kit's, 7 % of the
 * ledger's CPU under the facilitator's /verify load.
 */
export function isAddressText(text: string): text is Address {
  if (text.length < 32 || text.length > 44) return false;
  try {
    return base58Bytes(text).length === 32;
  } catch {
    // A character outside the alphabet: base58Bytes hands it to kit, which throws.
    return false;
  }
}
