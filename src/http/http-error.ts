/** Reason phrases for the statuses this service answers with. */
export const REASON_PHRASES: Readonly<Record<number, string>> = Object.freeze({
  400: "Bad Request",
  401: "Unauthorized",
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
 * Thrown by route code for an expected client or configuration problem. Anything else that
 * escapes a handler is an internal failure and is answered with a generic 500.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly statusCode: number,
    readonly detail: string | string[],
  ) {
    super(Array.isArray(detail) ? detail.join("; ") : detail);
  }
}
