import { isSignerFailure } from "../../application/ports/signer.ts";
import type { CodedError } from "../../domain/coded-error.ts";
import { SignerError, type SignerErrorCode } from "./signer-error.ts";

/** AWS error names grouped by what an operator has to do about them. */
const CODE_BY_ERROR_NAME: Readonly<Record<string, readonly [SignerErrorCode, string]>> = Object.freeze({
  NotFoundException: ["KEY_NOT_FOUND", "the key does not exist in this account and region"],
  AccessDeniedException: ["ACCESS_DENIED", "access denied; the key policy must allow kms:Sign and kms:GetPublicKey"],
  UnrecognizedClientException: ["ACCESS_DENIED", "the AWS credentials are not recognised"],
  InvalidSignatureException: ["ACCESS_DENIED", "the AWS request signature was rejected (check credentials and clock)"],
  ExpiredTokenException: ["ACCESS_DENIED", "the AWS session token has expired"],
  CredentialsProviderError: ["ACCESS_DENIED", "no AWS credentials were found"],
  DisabledException: ["KEY_INVALID", "the key is disabled"],
  KMSInvalidStateException: ["KEY_INVALID", "the key is not in a usable state (pending deletion or import)"],
  InvalidKeyUsageException: ["KEY_INVALID", "the key is not a SIGN_VERIFY key for ED25519_SHA_512"],
  UnsupportedOperationException: ["KEY_INVALID", "the key does not support this operation"],
  ThrottlingException: ["THROTTLED", "request rate exceeded after retries"],
  LimitExceededException: ["THROTTLED", "request rate exceeded after retries"],
  TimeoutError: ["TIMEOUT", "no answer within the request timeout"],
  RequestTimeout: ["TIMEOUT", "no answer within the request timeout"],
  DependencyTimeoutException: ["BACKEND_UNAVAILABLE", "KMS timed out internally"],
  KeyUnavailableException: ["BACKEND_UNAVAILABLE", "the key is temporarily unavailable"],
  KMSInternalException: ["BACKEND_UNAVAILABLE", "KMS internal error"],
});

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EPIPE", "ConnectionRefused"]);

/**
 * Turns an SDK failure into a SignerError naming the key id and the AWS error name.
 * SECURITY: the SDK's own message is dropped: it can quote request details, and a
 * credentials error can include the access key id.
 */
export function mapKmsError(error: unknown, keyId: string, operation: "Sign" | "GetPublicKey"): CodedError<SignerErrorCode> {
  if (isSignerFailure(error)) return error;
  const name = errorField(error, "name") ?? "Error";
  const attempts = attemptsOf(error);
  const suffix = attempts > 1 ? `, after ${attempts} attempts` : "";
  const known = CODE_BY_ERROR_NAME[name];
  if (known !== undefined) {
    return new SignerError(known[0], `aws-kms ${operation} for key ${keyId}: ${known[1]} (${name}${suffix})`);
  }
  const networkCode = errorField(error, "code");
  if (networkCode !== undefined && NETWORK_CODES.has(networkCode)) {
    return new SignerError("BACKEND_UNAVAILABLE", `aws-kms ${operation} for key ${keyId}: endpoint unreachable (${networkCode}${suffix})`);
  }
  return new SignerError("BACKEND_ERROR", `aws-kms ${operation} for key ${keyId}: request failed (${name}${suffix})`);
}

function errorField(error: unknown, field: "name" | "code"): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const value = (error as Record<string, unknown>)[field];
  return typeof value === "string" && /^[A-Za-z0-9_.]{1,80}$/.test(value) ? value : undefined;
}

function attemptsOf(error: unknown): number {
  if (typeof error !== "object" || error === null) return 0;
  const metadata = (error as { $metadata?: { attempts?: unknown } }).$metadata;
  return typeof metadata?.attempts === "number" ? metadata.attempts : 0;
}
