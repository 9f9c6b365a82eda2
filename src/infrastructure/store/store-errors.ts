import { CodedError } from "../../domain/coded-error.ts";

/**
 * Raised when the database cannot be reached, refuses us, or dropped the connection. Callers
 * map it to a 500 / degraded health without parsing driver messages; settlement answers it as
 * the port's STORE_UNAVAILABLE. The message names DATABASE_URL (the setting to fix), the redacted
 * target (host, port, database) and the reason in words with its code; never the user, the
 * password or the driver's own text.
 */
export class StoreUnavailableError extends CodedError<"STORE_UNAVAILABLE"> {
  override readonly name = "StoreUnavailableError";

  constructor(target: string, cause: unknown) {
    super("STORE_UNAVAILABLE", `settlement store unavailable: DATABASE_URL (${target}): ${causeSummary(cause)}`, { cause });
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
  const code = errorCode(error);
  if (code === null) return false;
  return (
    CONNECTION_ERROR_CODES.has(code) ||
    code.startsWith("08") ||
    code.startsWith("53") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03"
  );
}

/**
 * SQLSTATEs the server answers a new connection with when DATABASE_URL names something it
 * will not serve: 3D000 no such database, 28P01 wrong password, 28000 role or pg_hba refusal.
 * No statement ran, so these are reported like an unreachable server, naming the setting.
 */
export function isConnectionRefusedByServer(error: unknown): boolean {
  const code = errorCode(error);
  return code === "3D000" || code === "28P01" || code === "28000";
}

/** What each code means to an operator; anything else is reported by its code alone. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused: nothing listens at that host and port",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve (DNS did not answer)",
  ETIMEDOUT: "no answer from the server (timed out)",
  CONNECT_TIMEOUT: "no answer from the server (timed out)",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  "3D000": "the server has no database with that name",
  "28P01": "the server rejected the password",
  "28000": "the server refused this user (role or pg_hba.conf)",
  "53300": "the server has too many connections",
  "57P01": "the server is shutting down",
  "57P02": "the server is shutting down",
  "57P03": "the server is starting up or shutting down",
};

function causeSummary(cause: unknown): string {
  const code = errorCode(cause);
  if (code === null) return cause instanceof Error ? cause.name : "unknown error";
  const reason = REASONS[code] ?? (code.startsWith("08") || code.startsWith("CONNECTION_") ? "the connection failed or was closed" : undefined);
  return reason === undefined ? code : `${reason} (${code})`;
}

function errorCode(error: unknown): string | null {
  if (typeof error !== "object" || error === null || !("code" in error)) return null;
  return typeof error.code === "string" ? error.code : null;
}
