import type { TransactionView } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";

/**
 * SECURITY: every required signature other than the fee payer's is verified over the message
 * bytes. Simulation runs with signature verification off, so without this a forged or zeroed
 * payer signature would pass /verify and fail only at settlement, after our fee is spent.
 */
export async function checkPayerSignatures(
  view: TransactionView,
  keys: VerificationKeyCache = createVerificationKeyCache(),
): Promise<Rejection | null> {
  const others = view.signatureSlots.slice(1);
  for (const slot of others) {
    if (slot.signature === null) return reject("PAYER_SIGNATURE_INVALID", `signature of ${slot.address} is missing`);
  }
  const results = await Promise.all(
    others.map((slot) => verifyEd25519(keys, slot.address, slot.publicKey, slot.signature, view.messageBytes)),
  );
  const badIndex = results.indexOf(false);
  const bad = others[badIndex];
  return bad ? reject("PAYER_SIGNATURE_INVALID", `signature of ${bad.address} does not verify`) : null;
}

/** Imported verification keys by address. Payers pay again and again, and importKey is not free. */
export type VerificationKeyCache = Readonly<{
  /** The public key as a WebCrypto key, imported once per address (bounded, oldest evicted first). */
  keyFor(address: string, publicKey: Uint8Array<ArrayBuffer>): Promise<CryptoKey>;
}>;

const KEY_CACHE_CAPACITY = 10_000;

/** One per process is enough: the composition root owns it. Without one, each check imports afresh. */
export function createVerificationKeyCache(capacity = KEY_CACHE_CAPACITY): VerificationKeyCache {
  const importedKeys = new Map<string, Promise<CryptoKey>>();
  return {
    keyFor(address, publicKey) {
      const cached = importedKeys.get(address);
      if (cached) return cached;
      const imported = crypto.subtle.importKey("raw", publicKey, "Ed25519", false, ["verify"]);
      // A key that fails to import is not kept: the next attempt fails (or succeeds) on its own.
      imported.catch(() => importedKeys.delete(address));
      if (importedKeys.size >= capacity) {
        const oldest = importedKeys.keys().next();
        if (!oldest.done) importedKeys.delete(oldest.value);
      }
      importedKeys.set(address, imported);
      return imported;
    },
  };
}

/**
 * WebCrypto Ed25519 (native in Bun and Deno; Bun runs it on its worker pool, off the event
 * loop). The key is the raw 32 bytes from the message: converting the base58 address back to
 * bytes cost more than the verification itself. `address` is those same bytes in base58, so it
 * names the key exactly. Any failure, including a malformed key, is "invalid".
 */
async function verifyEd25519(
  keys: VerificationKeyCache,
  address: string,
  publicKey: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer> | null,
  message: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  if (signature === null || signature.byteLength !== 64 || publicKey.byteLength !== 32) return false;
  try {
    return await crypto.subtle.verify("Ed25519", await keys.keyFor(address, publicKey), signature, message);
  } catch {
    return false;
  }
}
