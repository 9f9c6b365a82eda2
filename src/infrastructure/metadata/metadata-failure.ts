import type { MetadataFetchCode, MetadataFetchFailure } from "../../application/ports/metadata-fetcher.ts";

/**
 * The one table of who is to blame: the client's URI (or what it serves), or the origin (down,
 * unreachable or too slow). `METADATA_HTTP_STATUS` is decided by the origin's status (see
 * `httpStatusFailure`).
 */
const BLAME_OF: Readonly<Record<MetadataFetchCode, MetadataFetchFailure["blame"]>> = {
  METADATA_URI_INVALID: "uri",
  METADATA_SCHEME_FORBIDDEN: "uri",
  METADATA_PORT_FORBIDDEN: "uri",
  METADATA_ADDRESS_FORBIDDEN: "uri",
  METADATA_HOST_UNKNOWN: "uri",
  METADATA_TOO_MANY_REDIRECTS: "uri",
  METADATA_TOO_LARGE: "uri",
  METADATA_NOT_JSON: "uri",
  METADATA_HTTP_STATUS: "uri",
  METADATA_TIMEOUT: "origin",
  METADATA_ORIGIN_DOWN: "origin",
};

export function metadataFailure(code: MetadataFetchCode, text: string): MetadataFetchFailure {
  return Object.freeze({ blame: BLAME_OF[code], code, reason: `${code}: ${text}` });
}

/** A non-200 final answer: 5xx means the origin is down, anything else is the URI's fault. */
export function httpStatusFailure(status: number): MetadataFetchFailure {
  return Object.freeze({
    blame: status >= 500 && status <= 599 ? "origin" : "uri",
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
