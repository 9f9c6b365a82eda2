import { type SignerErrorCode } from "../../application/ports/signer.ts";
import { CodedError } from "../../domain/coded-error.ts";

export type { SignerErrorCode };

/**
 * A CodedError with one of the signer's codes (application/ports/signer.ts: SIGNER_ERROR_CODES):
 * a signer cannot be built or cannot sign. Callers branch on `code` (`isSignerFailure`), never
 * on message text. Messages name settings and key ids, never key material, PINs or values.
 * The subclass only keeps the name its log lines and boot messages carry.
 */
export class SignerError extends CodedError<SignerErrorCode> {
  override readonly name = "SignerError";
}
