import { verifyAsync } from "@noble/ed25519";
import { getAddressEncoder, getBase58Encoder, getBase64Encoder, type Address } from "@solana/kit";

const SIGNATURE_BYTES = 64;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;
const BASE64 = /^[A-Za-z0-9+/]{86}(==)?$/;
const BASE64URL = /^[A-Za-z0-9_-]{86}$/;

/**
 * The 64 bytes a signature text may stand for. Wallets hand signatures back as bytes and apps send
 * them as base58 (Solana's habit) or base64, so both are read. A few texts are valid in both
 * alphabets (an unpadded base64 that is also base58); then both readings are returned and either
 * may verify, which is no weaker: each is still a 64-byte ed25519 signature over our message.
 * Empty when the text is neither.
 */
export function signatureCandidates(text: string): readonly Uint8Array[] {
  const candidates: Uint8Array[] = [];
  if (BASE58.test(text)) addIfSignature(candidates, () => getBase58Encoder().encode(text));
  if (BASE64.test(text)) addIfSignature(candidates, () => getBase64Encoder().encode(text.replace(/=+$/, "")));
  else if (BASE64URL.test(text)) addIfSignature(candidates, () => getBase64Encoder().encode(text.replaceAll("-", "+").replaceAll("_", "/")));
  return candidates;
}

function addIfSignature(into: Uint8Array[], decode: () => ArrayLike<number>): void {
  try {
    const bytes = Uint8Array.from(decode());
    if (bytes.length === SIGNATURE_BYTES) into.push(bytes);
  } catch {
    // Not decodable in this alphabet after all: not a candidate.
  }
}

/**
 * Whether `signer` signed exactly `message` (its UTF-8 bytes). SECURITY: strict RFC 8032
 * verification (zip215 off), as for payment proofs: small-order keys and non-canonical encodings,
 * for which one signature can be valid for many messages, are refused.
 */
export async function verifySignInSignature(message: string, signature: Uint8Array, signer: Address): Promise<boolean> {
  if (signature.length !== SIGNATURE_BYTES) return false;
  try {
    const publicKey = new Uint8Array(getAddressEncoder().encode(signer));
    return await verifyAsync(signature, new TextEncoder().encode(message), publicKey, { zip215: false });
  } catch {
    // A malformed key or signature is a signature that does not verify, never a crash.
    return false;
  }
}
