import {
  type Address,
  createKeyPairFromBytes,
  createKeyPairFromPrivateKeyBytes,
  getAddressFromPublicKey,
  signBytes,
} from "@solana/kit";
import type { Signer } from "../../application/ports/signer.ts";
import { decodePrivateKeyText } from "./private-key-format.ts";
import { resolveSecret, type SecretDeps } from "./secret-source.ts";
import type { SecretSource } from "./signer-config.ts";
import { SignerError } from "./signer-error.ts";

/**
 * A signer over a key held in this process, imported into WebCrypto as non-extractable
 * Ed25519 (native speed, and the key cannot be read back out of the CryptoKey).
 * `setting` names where the key came from, for error messages only.
 * The caller's byte array is zeroed once imported.
 */
export async function createLocalSigner(secret: Uint8Array, setting: string): Promise<Signer> {
  let keyPair: CryptoKeyPair;
  try {
    keyPair =
      secret.length === 64
        ? await createKeyPairFromBytes(secret, false)
        : await createKeyPairFromPrivateKeyBytes(secret, false);
  } catch {
    // SECURITY: kit's error text may carry key bytes; only the setting name leaves here.
    throw new SignerError("KEY_INVALID", `${setting}: not a valid ed25519 key (public half does not match, or wrong length)`);
  } finally {
    secret.fill(0);
  }
  const address = await getAddressFromPublicKey(keyPair.publicKey);
  return localSignerFromKeyPair(keyPair.privateKey, address);
}

/** Reads and decodes the key named by `source` (file or inline), then builds the signer. */
export async function createLocalSignerFromSource(source: SecretSource, deps: SecretDeps): Promise<Signer> {
  const decoded = decodePrivateKeyText(resolveSecret(source, deps));
  if (!decoded.ok) throw new SignerError("KEY_INVALID", `${source.setting} ${decoded.reason}`);
  return createLocalSigner(decoded.bytes, source.setting);
}

function localSignerFromKeyPair(privateKey: CryptoKey, address: Address): Signer {
  return Object.freeze({
    address,
    kind: "local" as const,
    async signMessages(messages: readonly Uint8Array[]): Promise<readonly Uint8Array[]> {
      const signatures = await Promise.all(messages.map((message) => signBytes(privateKey, message)));
      return signatures.map((signature) => new Uint8Array(signature));
    },
    async close() {},
  });
}
