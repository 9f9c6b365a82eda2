import type { CountersFailureCode } from "../application/ports/window-counters.ts";
import { CodedError } from "../domain/coded-error.ts";

/** A request the HTTP layer refuses, named for its status (the table below). */
export const HTTP_ERROR_CODES = [
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "NOT_CONFIGURED",
  "NOT_IMPLEMENTED",
  "BAD_GATEWAY",
  "UNAVAILABLE",
] as const;
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/** Every code a client is answered for with its own status: the HTTP layer's, and the failures of ports that mean "retry later". */
type ClientFacingCode = HttpErrorCode | CountersFailureCode;

/** Reason phrases for the statuses this service answers with. */
export const REASON_PHRASES: Readonly<Record<number, string>> = Object.freeze({
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
});

/** The one error body shape of both interfaces (spec "Errors"). */
export type ErrorBody = Readonly<{ statusCode: number; message: string | string[]; error: string }>;

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return { statusCode, message, error: REASON_PHRASES[statusCode] ?? "Error" };
}

export function errorResponse(statusCode: number, message: string | string[]): Response {
  return Response.json(errorBody(statusCode, message), { status: statusCode });
}

/**
 * The one table from error codes to HTTP statuses. A coded error whose code is not here (a
 * refused boot, an unknown signer) is an internal failure when it reaches a handler: a generic 500.
 */
export const HTTP_STATUS_OF_CODE: Readonly<Record<ClientFacingCode, number>> = Object.freeze({
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  NOT_CONFIGURED: 500,
  NOT_IMPLEMENTED: 501,
  BAD_GATEWAY: 502,
  UNAVAILABLE: 503,
  COUNTERS_UNAVAILABLE: 503,
});

/** Each status's first code in the table: `new HttpError(503, ...)` is UNAVAILABLE, not a later 503 code. */
const CODE_OF_STATUS: ReadonlyMap<number, ClientFacingCode> = new Map(
  Object.entries(HTTP_STATUS_OF_CODE)
    .reverse()
    .map(([code, status]) => [status, code as ClientFacingCode] as const),
);

/** The status a coded error is answered with, or null when it is not a client-facing code. */
export function httpStatusOf(error: CodedError): number | null {
  return (HTTP_STATUS_OF_CODE as Readonly<Record<string, number>>)[error.code] ?? null;
}

/**
 * Thrown by route code for an expected client or configuration problem: a CodedError named by
 * its status, so routes keep writing `new HttpError(404, ...)`. Anything else that escapes a
 * handler is an internal failure and is answered with a generic 500.
 */
export class HttpError extends CodedError {
  override readonly name = "HttpError";
  constructor(statusCode: number, detail: string | string[]) {
    super(CODE_OF_STATUS.get(statusCode) ?? "NOT_CONFIGURED", detail);
  }

  get statusCode(): number {
    return (HTTP_STATUS_OF_CODE as Readonly<Record<string, number>>)[this.code] ?? 500;
  }
}
