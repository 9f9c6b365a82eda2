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
