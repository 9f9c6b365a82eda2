import type { Signer } from "../../application/ports/signer.ts";
import type { SignatureVerifier } from "./signature-verifier.ts";
import { SignerError } from "./signer-error.ts";

export type RemoteSignerParts = Readonly<{
  address: Signer["address"];
  kind: "aws-kms" | "pkcs11";
  /** Names the signer in the CLOSED error: `aws-kms signer for key alias/x`, `pkcs11 signer`. */
  label: string;
  /** One backend call for one message; its failures are already mapped to SignerError. */
  sign(message: Uint8Array): Promise<Uint8Array | undefined>;
  verify: SignatureVerifier;
  /** The BACKEND_ERROR message for a signature that does not verify under `address`. */
  mismatch: string;
  /** Frees the backend; called once, by the first close. */
  release(): void | Promise<void>;
}>;

/**
 * A signer whose backend (a KMS, an HSM) signs one message a call: a batch fans out, every
 * signature is checked against the advertised key, and close releases the backend once.
 */
export function remoteSigner(parts: RemoteSignerParts): Signer {
  let closed = false;
  const signOne = async (message: Uint8Array): Promise<Uint8Array> => {
    if (closed) throw new SignerError("CLOSED", `${parts.label} is closed`);
    const signature = await parts.sign(message);
    // SECURITY: a signature that does not verify under the advertised key (wrong key id, a proxy
    // answering for another key, a token holding another key) is never put into a transaction.
    if (signature === undefined || !(await parts.verify(message, signature))) throw new SignerError("BACKEND_ERROR", parts.mismatch);
    return signature;
  };
  return Object.freeze({
    address: parts.address,
    kind: parts.kind,
    signMessages: (messages: readonly Uint8Array[]) => Promise.all(messages.map(signOne)),
    async close() {
      if (closed) return;
      closed = true;
      await parts.release();
    },
  });
}
