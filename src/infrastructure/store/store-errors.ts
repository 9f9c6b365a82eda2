/**
 * Raised when the database cannot be reached or dropped the connection. Callers map it to
 * a 500 / degraded health without parsing driver messages. The message names the target
 * (host, port, database) but never the password.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  readonly code = "STORE_UNAVAILABLE";

  constructor(target: string, cause: unknown) {
    super(`settlement store unavailable (${target}): ${causeSummary(cause)}`, { cause });
  }
}

/** Node socket codes and `postgres` client codes that mean "no usable connection". */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/**
 * SQLSTATE classes that mean the server is unusable rather than the statement wrong:
 * 08 connection exception, 53 insufficient resources (too many connections),
 * 57P01-57P03 shutdown / cannot connect now.
 */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const code = error.code;
  if (typeof code !== "string") return false;
  return (
    CONNECTION_ERROR_CODES.has(code) ||
    code.startsWith("08") ||
    code.startsWith("53") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03"
  );
}

function causeSummary(cause: unknown): string {
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") {
    return cause.code;
  }
  return cause instanceof Error ? cause.name : "unknown error";
}
