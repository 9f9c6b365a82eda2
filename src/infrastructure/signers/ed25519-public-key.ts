import { type Address, getAddressDecoder } from "@solana/kit";

/** DER header of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE { id-Ed25519, BIT STRING(32 bytes) }. */
const ED25519_SPKI_HEADER = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

/**
 * The raw 32-byte key inside an Ed25519 SPKI, as KMS GetPublicKey returns it. Null for any
 * other key type: checking the whole header, not just taking the last 32 bytes, stops a
 * misconfigured ECDSA key from being mistaken for a Solana key.
 */
export function ed25519KeyFromSpki(der: Uint8Array): Uint8Array | null {
  if (der.length !== ED25519_SPKI_HEADER.length + 32) return null;
  if (!ED25519_SPKI_HEADER.every((byte, i) => der[i] === byte)) return null;
  return der.slice(ED25519_SPKI_HEADER.length);
}

/** Builds the SPKI for a raw key; the inverse of {@link ed25519KeyFromSpki}. */
export function ed25519Spki(publicKey: Uint8Array): Uint8Array {
  const der = new Uint8Array(ED25519_SPKI_HEADER.length + 32);
  der.set(ED25519_SPKI_HEADER, 0);
  der.set(publicKey, ED25519_SPKI_HEADER.length);
  return der;
}

/**
 * The raw key from a PKCS#11 CKA_EC_POINT: PKCS#11 3.0 says a DER OCTET STRING wrapping
 * the 32 bytes (SoftHSM2 does this); some HSMs return the bare 32 bytes.
 */
export function ed25519KeyFromEcPoint(point: Uint8Array): Uint8Array | null {
  if (point.length === 34 && point[0] === 0x04 && point[1] === 0x20) return point.slice(2);
  if (point.length === 32) return point.slice();
  return null;
}

export function addressFromPublicKey(publicKey: Uint8Array): Address {
  return getAddressDecoder().decode(publicKey);
}
