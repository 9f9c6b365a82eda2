import { type TObject, Type } from "@sinclair/typebox";
import { t } from "elysia";
import { REASON_PHRASES } from "./http-error.ts";

const errorFields = {
  statusCode: Type.Integer({ description: "the HTTP status, repeated" }),
  message: t.Union([t.String(), t.Array(t.String())], { description: "what went wrong; a list when a request has several problems" }),
  error: t.String({ description: "the status's reason phrase" }),
};

/** The one error body of both interfaces (spec "Errors"): `{statusCode, message, error}`. */
/** When each status is answered, and an example of its body. */
const ERRORS: Readonly<Record<number, Readonly<{ when: string; message: string | string[] }>>> = {
  400: {
    when: "malformed request: not JSON, or a body, query or path parameter outside its schema (every problem is listed)",
    message: ["paymentPayload is required", "paymentRequirements is required"],
  },
  401: { when: "missing or refused credentials", message: "the API key is not valid" },
  403: {
    when: "a browser request from an origin not in AUTH_ALLOWED_ORIGINS (requests without an Origin header are not affected)",
    message: "https://other.example may not call POST /agents/register from a browser: it is not in AUTH_ALLOWED_ORIGINS",
  },
  404: { when: "no such resource", message: "agent not found" },
  413: { when: "the request body is larger than 64 KiB", message: "request body exceeds 65536 bytes" },
  429: { when: "too many requests from this client; retry after a minute", message: "too many registrations from this address; retry in a minute" },
  500: { when: "an unexpected failure (no internal detail is given) or a configuration error", message: "internal error" },
  502: { when: "an origin this request depends on failed (down, 5xx or too slow)", message: "metadataUri: METADATA_ORIGIN_DOWN: connection refused" },
  503: { when: "a dependency this endpoint needs is unavailable; retry later", message: "registry index is not available yet; retry shortly" },
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 413 | 429 | 500 | 502 | 503;

/**
 * The `response` entries of a route's error statuses, each the error body with a description and
 * an example. `overrides` words a status for one route (e.g. /settle's 500).
 */
export function errorResponses<const S extends ErrorStatus>(
  statuses: readonly S[],
  overrides: Partial<Record<S, Readonly<{ when: string; message: string | string[] }>>> = {},
): Record<S, TObject<typeof errorFields>> {
  const entries = statuses.map((status) => {
    const { when, message } = overrides[status] ?? ERRORS[status] ?? { when: "error", message: "error" };
    const example = { statusCode: status, message, error: REASON_PHRASES[status] ?? "Error" };
    return [status, t.Object(errorFields, { title: "Error", additionalProperties: false, description: `${REASON_PHRASES[status]}: ${when}`, examples: [example] })];
  });
  return Object.fromEntries(entries) as Record<S, TObject<typeof errorFields>>;
}
