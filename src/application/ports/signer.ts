import type { Address } from "@solana/kit";
import { CodedError } from "../../domain/coded-error.ts";

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

/**
 * Why a signer cannot be built or cannot sign: the codes every signer adapter throws (as a
 * CodedError). Kept as the signers have always named them (operators' runbooks and alerts know
 * these), so they carry no prefix.
 */
export const SIGNER_ERROR_CODES = [
  "CONFIG_INVALID",
  "KEY_INVALID",
  "KEY_NOT_FOUND",
  "ACCESS_DENIED",
  "ADDRESS_MISMATCH",
  "THROTTLED",
  "TIMEOUT",
  "BACKEND_UNAVAILABLE",
  "BACKEND_ERROR",
  "CLOSED",
] as const;
export type SignerErrorCode = (typeof SIGNER_ERROR_CODES)[number];

const SIGNER_CODES: ReadonlySet<string> = new Set(SIGNER_ERROR_CODES);

/** Whether a signer failed, with any of its codes. */
export function isSignerFailure(error: unknown): error is CodedError<SignerErrorCode> {
  return error instanceof CodedError && SIGNER_CODES.has(error.code);
}
