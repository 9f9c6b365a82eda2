import { sha256 } from "@noble/hashes/sha2.js";
import type { MetadataDocument, MetadataFetchFailure, MetadataFetcher } from "../../application/ports/metadata-fetcher.ts";
import { CodedError } from "../../domain/coded-error.ts";
import { type HostResolver, type ResolvedAddress, systemHostResolver } from "./host-resolver.ts";
import { forbiddenAddressReason } from "./ip-address-rules.ts";
import { readBodyWithinCap } from "./capped-body.ts";
import { errorCode, httpStatusFailure, metadataFailure, timeoutFailure } from "./metadata-failure.ts";
import { type FetchTarget, type TargetRules, parseGatewayUrl, targetOfMetadataUri, targetOfRedirect } from "./metadata-target.ts";
import { type HttpsExchange, type PinnedHttpsTransport, createPinnedHttpsTransport } from "./pinned-https-transport.ts";
import { createLoopbackHttpTransport } from "./loopback-http-transport.ts";

export const DEFAULT_METADATA_MAX_BYTES = 1024 * 1024;
export const DEFAULT_METADATA_MAX_REDIRECTS = 3;
export const METADATA_USER_AGENT = "x84-agent-registry-metadata-fetcher/1";

export type MetadataFetcherOptions = Readonly<{
  /** IPFS_GATEWAY_URL: https, port 443; `ipfs://<cid>/p` becomes `<gateway>/<cid>/p`. */
  gatewayUrl: string;
  /** METADATA_FETCH_TIMEOUT_MS: one deadline for DNS, connect, TLS, every redirect and the body. */
  timeoutMs: number;
  /** Largest document accepted, in bytes (default 1 MiB). */
  maxBytes?: number;
  /** Redirects followed before refusing (default 3). */
  maxRedirects?: number;
  /** Ports a metadata URL may name (default `[443]`). */
  allowedPorts?: readonly number[];
  /** Default: `dns.lookup` with `all: true`. */
  resolver?: HostResolver;
  /** Default: node:https pinned to the vetted addresses. */
  transport?: PinnedHttpsTransport;
  /**
   * METADATA_ALLOW_LOOPBACK: also fetch `http://127.0.0.1[:port]/...` and `http://localhost[:port]/...`
   * (a developer serving metadata on a laptop). Default false; production refuses it (production-guard.ts).
   */
  allowLoopbackHttp?: boolean;
}>;

/** Sent on every request; nothing else (no cookies, no authorization, no client headers). */
const REQUEST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "user-agent": METADATA_USER_AGENT,
  accept: "application/json",
  // SECURITY: no compression, so the cap counts the bytes we hash and no decompression bomb exists.
  "accept-encoding": "identity",
});

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The metadata fetcher for `POST /agents/register`, holding every SSRF rule listed in
 * docs/registry.md ("Metadata fetch (SSRF rules)"). Throws only for a bad `gatewayUrl` (a boot-time
 * configuration error); `fetchMetadata` itself never throws for a bad URI or origin.
 *
 * @example
 * const fetcher = createMetadataFetcher({ gatewayUrl: config.IPFS_GATEWAY_URL, timeoutMs: config.METADATA_FETCH_TIMEOUT_MS });
 * const result = await fetcher.fetchMetadata("ipfs://bafy.../agent.json");
 */
export function createMetadataFetcher(options: MetadataFetcherOptions): MetadataFetcher {
  const rules: TargetRules = Object.freeze({
    gateway: parseGatewayUrl(options.gatewayUrl),
    allowedPorts: Object.freeze([...(options.allowedPorts ?? [443])]),
    allowLoopbackHttp: options.allowLoopbackHttp ?? false,
  });
  const settings: FetchSettings = Object.freeze({
    rules,
    maxBytes: options.maxBytes ?? DEFAULT_METADATA_MAX_BYTES,
    maxRedirects: options.maxRedirects ?? DEFAULT_METADATA_MAX_REDIRECTS,
    resolver: options.resolver ?? systemHostResolver,
    transport: options.transport ?? createPinnedHttpsTransport(),
    loopbackTransport: createLoopbackHttpTransport(),
  });
  return Object.freeze({
    async fetchMetadata(uri: string): Promise<MetadataDocument | MetadataFetchFailure> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new CodedError("METADATA_DEADLINE", "deadline")), options.timeoutMs);
      try {
        return await fetchWithin(uri, settings, controller.signal);
      } finally {
        clearTimeout(timer);
        controller.abort(new CodedError("METADATA_DEADLINE", "done"));
      }
    },
  });
}

type FetchSettings = Readonly<{
  rules: TargetRules;
  maxBytes: number;
  maxRedirects: number;
  resolver: HostResolver;
  transport: PinnedHttpsTransport;
  /** Plain http to 127.0.0.1: reached only by the targets the loopback rule produced (http: URLs). */
  loopbackTransport: PinnedHttpsTransport;
}>;

async function fetchWithin(uri: string, settings: FetchSettings, signal: AbortSignal): Promise<MetadataDocument | MetadataFetchFailure> {
  let target = targetOfMetadataUri(uri, settings.rules);
  for (let redirects = 0; ; redirects++) {
    if ("code" in target) return target;
    const addresses = await vettedAddresses(target, settings.resolver, signal);
    if ("code" in addresses) return addresses;
    const exchange = await send(target.url.protocol === "http:" ? settings.loopbackTransport : settings.transport, target.url, addresses, signal);
    if ("code" in exchange) return exchange;
    if (!REDIRECT_STATUSES.has(exchange.status)) return documentOf(exchange, settings.maxBytes, signal);
    exchange.close();
    // SECURITY: redirects are followed by hand so each hop passes every rule again (scheme, port, address).
    if (redirects >= settings.maxRedirects) {
      return metadataFailure("METADATA_TOO_MANY_REDIRECTS", `the metadata URI redirected more than ${settings.maxRedirects} times`);
    }
    const location = exchange.header("location");
    if (location === null) return httpStatusFailure(exchange.status);
    target = targetOfRedirect(location, target.url, settings.rules);
  }
}

/**
 * The addresses to connect to: the IP literal itself, or every address the name resolves to.
 * SECURITY: refused if any one of them is forbidden, so a name answering both a public and a
 * private address cannot win a race to the private one.
 */
async function vettedAddresses(
  target: FetchTarget,
  resolver: HostResolver,
  signal: AbortSignal,
): Promise<readonly ResolvedAddress[] | MetadataFetchFailure> {
  if (target.ip !== null) return [{ address: target.ip, family: target.ip.includes(":") ? 6 : 4 }];
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await untilAborted(resolver(target.hostname), signal);
  } catch (error) {
    if (signal.aborted) return timeoutFailure();
    const code = errorCode(error);
    if (code === "ENOTFOUND" || code === "ENODATA") return metadataFailure("METADATA_HOST_UNKNOWN", "the metadata host does not exist");
    return metadataFailure("METADATA_ORIGIN_DOWN", `the metadata host could not be resolved (${code ?? "DNS error"})`);
  }
  if (addresses.length === 0) return metadataFailure("METADATA_HOST_UNKNOWN", "the metadata host has no address");
  // The reason names no address: telling a client what an internal name resolves to would map our network for it.
  if (addresses.some((a) => forbiddenAddressReason(a.address) !== null)) {
    return metadataFailure("METADATA_ADDRESS_FORBIDDEN", "the metadata host resolves to an address that is not public");
  }
  return addresses;
}

async function send(
  transport: PinnedHttpsTransport,
  url: URL,
  addresses: readonly ResolvedAddress[],
  signal: AbortSignal,
): Promise<HttpsExchange | MetadataFetchFailure> {
  try {
    return await untilAborted(transport({ url, addresses, headers: REQUEST_HEADERS, signal }), signal);
  } catch (error) {
    if (signal.aborted) return timeoutFailure();
    return metadataFailure("METADATA_ORIGIN_DOWN", `the metadata origin could not be reached (${errorCode(error) ?? "connection failed"})`);
  }
}

async function documentOf(exchange: HttpsExchange, maxBytes: number, signal: AbortSignal): Promise<MetadataDocument | MetadataFetchFailure> {
  if (exchange.status !== 200) {
    exchange.close();
    return httpStatusFailure(exchange.status);
  }
  const bytes = await readBodyWithinCap(exchange, maxBytes, signal);
  if (!(bytes instanceof Uint8Array)) return bytes;
  const json = parseJsonObject(bytes);
  if (json === undefined) return metadataFailure("METADATA_NOT_JSON", "the metadata document is not a UTF-8 JSON object");
  return Object.freeze({ bytes, sha256: sha256(bytes), json });
}

/**
 * x84 metadata is a JSON object; arrays, strings, numbers and null are refused. Strict UTF-8:
 * invalid byte sequences are refused rather than replaced, so the hash covers exactly what was parsed.
 */
function parseJsonObject(bytes: Uint8Array): unknown {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Settles with `promise`, or rejects with the abort reason once `signal` fires (DNS lookups cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
