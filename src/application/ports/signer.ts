import type { Address } from "@solana/kit";

/**
 * An ed25519 key that signs raw message bytes. No RPC inside, so it fits kit's
 * `TransactionPartialSigner` shape and any backend (local, KMS, HSM) works the same.
 * Returns one 64-byte signature per message, in order. Throws on backend failure.
 */
export type Signer = Readonly<{
  address: Address;
  /** Human-readable backend kind for logs and /health, never a secret. */
  kind: "local" | "aws-kms" | "pkcs11";
  signMessages(messages: readonly Uint8Array[]): Promise<readonly Uint8Array[]>;
  /** Releases sessions or clients. Idempotent. */
  close?(): Promise<void>;
}>;
