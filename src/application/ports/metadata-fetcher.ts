/**
 * Stable reason codes of a refused or failed metadata fetch. Each failure's `reason` text starts
 * with its code, so a client (and a test) can match on it without parsing prose.
 */
export type MetadataFetchCode =
  /** The URI does not parse, is too long, or carries credentials (`https://user:pass@host`). */
  | "METADATA_URI_INVALID"
  /** Anything but `https:` or `ipfs://`, including an https -> http downgrade in a redirect. */
  | "METADATA_SCHEME_FORBIDDEN"
  /** A port other than 443. */
  | "METADATA_PORT_FORBIDDEN"
  /** The host is, or resolves to, a non-public address (loopback, private, link-local, ...). */
  | "METADATA_ADDRESS_FORBIDDEN"
  /** The host name does not exist in DNS. */
  | "METADATA_HOST_UNKNOWN"
  | "METADATA_TOO_MANY_REDIRECTS"
  /** The document is larger than the cap (1 MiB by default). */
  | "METADATA_TOO_LARGE"
  /** The document is not UTF-8 JSON holding an object. */
  | "METADATA_NOT_JSON"
  /** The origin answered something other than 200 (4xx: 400, 5xx: 502). */
  | "METADATA_HTTP_STATUS"
  /** The whole fetch (DNS, connect, redirects, body) took longer than the timeout. */
  | "METADATA_TIMEOUT"
  /** Connection refused or reset, TLS failure, DNS server failure. */
  | "METADATA_ORIGIN_DOWN";

/** The fetched document: its exact bytes, their SHA-256 (the on-chain `metadata_hash`) and the parsed JSON object. */
export type MetadataDocument = Readonly<{
  bytes: Uint8Array;
  /** SHA-256 of `bytes`, 32 bytes. */
  sha256: Uint8Array;
  json: unknown;
}>;

/**
 * Who is to blame. `uri`: the client's URI (forbidden scheme, port or address, too large, not
 * JSON, 4xx). `origin`: the origin is down, unreachable, too slow or answered 5xx. `reason` is
 * `"<code>: <text>"` and never names a resolved address, so the service cannot be used to map
 * internal DNS. (The HTTP layer answers 400 and 502.)
 */
export type MetadataFetchFailure = Readonly<{
  blame: "uri" | "origin";
  code: MetadataFetchCode;
  reason: string;
}>;

/**
 * Fetches an agent's metadata document from a URI the client chose, under the SSRF rules in
 * docs/registry.md ("Metadata fetch"). Never throws for a bad URI or a bad origin: every such case
 * is a `MetadataFetchFailure`.
 *
 * @example
 * const result = await fetcher.fetchMetadata("https://agents.example.com/agent.json");
 * if (isMetadataFetchFailure(result)) return { blame: result.blame, message: result.reason };
 * const metadataHash = result.sha256;
 */
export type MetadataFetcher = Readonly<{
  fetchMetadata(uri: string): Promise<MetadataDocument | MetadataFetchFailure>;
}>;

export function isMetadataFetchFailure(result: MetadataDocument | MetadataFetchFailure): result is MetadataFetchFailure {
  return "blame" in result;
}

/**
 * The abort reason of a metadata fetch whose deadline passed (or that finished): every error raised
 * by that abort is answered as METADATA_TIMEOUT, because the fetcher checks `signal.aborted` before
 * it reads any error's code.
 */
export type MetadataDeadlineCode = "METADATA_DEADLINE";
