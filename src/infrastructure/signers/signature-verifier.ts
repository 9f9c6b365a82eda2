/**
 * Checks a backend's signatures against the public key we advertise, with WebCrypto.
 * Used by remote backends (KMS, HSM): a signature from the wrong key would otherwise only
 * surface as a ledger rejection after the settlement was claimed.
 */
export type SignatureVerifier = (message: Uint8Array, signature: Uint8Array) => Promise<boolean>;

export async function createSignatureVerifier(publicKey: Uint8Array): Promise<SignatureVerifier> {
  const key = await crypto.subtle.importKey("raw", new Uint8Array(publicKey), { name: "Ed25519" }, false, ["verify"]);
  return async (message, signature) =>
    signature.length === 64 &&
    crypto.subtle.verify({ name: "Ed25519" }, key, new Uint8Array(signature), new Uint8Array(message));
}
