/**
 * The codes of the errors the service throws on purpose. Payment problems are never thrown
 * (they are `Rejection` values with reason codes); these are refused requests and refused boots.
 */
/**
 * Why a signer cannot be built or cannot sign. Kept as the signers have always named them
 * (operators' runbooks and alerts know these), so they carry no prefix.
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

export const ERROR_CODES = [
  // A request the HTTP layer refuses; src/http/http-error.ts maps each to its status.
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "NOT_FOUND",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "NOT_CONFIGURED",
  "NOT_IMPLEMENTED",
  "BAD_GATEWAY",
  "UNAVAILABLE",
  /** The settings cannot make a service; `detail` lists every problem. */
  "CONFIGURATION_INVALID",
  /** A signature was asked of an address that is none of our fee payers. */
  "SIGNER_UNKNOWN",
  /** The ledger said no to this transaction: an answer about it, not a fault (`LedgerError`). */
  "LEDGER_REJECTED",
  /** The ledger could not be asked (transport, timeout, a node fault); worth retrying. */
  "LEDGER_UNAVAILABLE",
  /** The node answered a JSON-RPC call with an error object; the RPC ledger classifies it. */
  "LEDGER_RPC_ERROR",
  /** The node answered with an HTTP status outside 2xx; the RPC ledger classifies it. */
  "LEDGER_HTTP_ERROR",
  /**
   * The settlement store could not be reached, refused the connection or lost it mid-statement.
   * A write that failed this way may or may not have committed; callers leave the rest to recovery.
   */
  "STORE_UNAVAILABLE",
  /**
   * The shared window counters (Redis, or the database without REDIS_URL) did not answer in time
   * or at all. Limits built on them fail closed: a rate-limited route answers 503, the fee budget
   * charges nothing and signs nothing.
   */
  "COUNTERS_UNAVAILABLE",
  /** The agent index has never loaded and loading failed; the registry answers 503. */
  "REGISTRY_INDEX_UNAVAILABLE",
  /** The registry program's config could never be read (ledger down, nothing cached). */
  "PROTOCOL_CONFIG_UNAVAILABLE",
  /**
   * The abort reason of a metadata fetch whose deadline passed (or that finished): every error
   * raised by that abort is answered as METADATA_TIMEOUT, because the fetcher checks
   * `signal.aborted` before it reads any error's code.
   */
  "METADATA_DEADLINE",
  /** A feedback detail backfill pass abandoned because stop() was called; never logged. */
  "BACKFILL_STOPPED",
  /** A JWT key file (signing or verification keys) cannot be used; a refused boot. */
  "AUTH_KEY_INVALID",
  ...SIGNER_ERROR_CODES,
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * One error type with a stable `code` to branch on, instead of a class per failure.
 * `detail` is what a reader is told: the message, or a list of problems.
 */
export class CodedError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name: string = "CodedError";
  readonly detail: string | string[];
  constructor(
    readonly code: C,
    detail: string | readonly string[],
    options?: ErrorOptions,
  ) {
    super(typeof detail === "string" ? detail : detail.join("; "), options);
    this.detail = typeof detail === "string" ? detail : [...detail];
  }
}

export function isCoded<C extends ErrorCode>(error: unknown, code: C): error is CodedError<C> {
  return error instanceof CodedError && error.code === code;
}

const SIGNER_CODES: ReadonlySet<ErrorCode> = new Set(SIGNER_ERROR_CODES);

/** Whether a signer failed, with any of its codes. */
export function isSignerFailure(error: unknown): error is CodedError<SignerErrorCode> {
  return error instanceof CodedError && SIGNER_CODES.has(error.code);
}
