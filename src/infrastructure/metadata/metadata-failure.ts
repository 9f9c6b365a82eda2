import type { MetadataFetchCode, MetadataFetchFailure } from "../../application/ports/metadata-fetcher.ts";

/**
 * The one table of who is to blame: 400 when the client's URI (or what it serves) is at fault,
 * 502 when the origin is down, unreachable or too slow. `METADATA_HTTP_STATUS` is decided by the
 * origin's status (see `httpStatusFailure`).
 */
const STATUS_OF: Readonly<Record<MetadataFetchCode, 400 | 502>> = {
  METADATA_URI_INVALID: 400,
  METADATA_SCHEME_FORBIDDEN: 400,
  METADATA_PORT_FORBIDDEN: 400,
  METADATA_ADDRESS_FORBIDDEN: 400,
  METADATA_HOST_UNKNOWN: 400,
  METADATA_TOO_MANY_REDIRECTS: 400,
  METADATA_TOO_LARGE: 400,
  METADATA_NOT_JSON: 400,
  METADATA_HTTP_STATUS: 400,
  METADATA_TIMEOUT: 502,
  METADATA_ORIGIN_DOWN: 502,
};

export function metadataFailure(code: MetadataFetchCode, text: string): MetadataFetchFailure {
  return Object.freeze({ status: STATUS_OF[code], code, reason: `${code}: ${text}` });
}

/** A non-200 final answer: 5xx means the origin is down (502), anything else is the URI's fault (400). */
export function httpStatusFailure(status: number): MetadataFetchFailure {
  return Object.freeze({
    status: status >= 500 && status <= 599 ? 502 : 400,
    code: "METADATA_HTTP_STATUS",
    reason: `METADATA_HTTP_STATUS: the metadata URI answered HTTP ${status}`,
  });
}

export function timeoutFailure(): MetadataFetchFailure {
  return metadataFailure("METADATA_TIMEOUT", "the metadata URI did not answer in time");
}

/** A Node-style error code (`ECONNREFUSED`, `ERR_TLS_CERT_ALTNAME_INVALID`), never the message, which may name addresses. */
export function errorCode(error: unknown): string | null {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? code : null;
}
