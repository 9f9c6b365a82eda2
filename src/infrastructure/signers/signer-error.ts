/**
 * Stable reasons a signer cannot be built or cannot sign. Callers branch on `code`, never
 * on message text. Messages name settings and key ids, never key material, PINs or values.
 */
export type SignerErrorCode =
  | "CONFIG_INVALID"
  | "KEY_INVALID"
  | "KEY_NOT_FOUND"
  | "ACCESS_DENIED"
  | "ADDRESS_MISMATCH"
  | "THROTTLED"
  | "TIMEOUT"
  | "BACKEND_UNAVAILABLE"
  | "BACKEND_ERROR"
  | "CLOSED";

export class SignerError extends Error {
  override readonly name = "SignerError";
  constructor(
    readonly code: SignerErrorCode,
    message: string,
  ) {
    super(message);
  }
}
