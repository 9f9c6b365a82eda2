import type { MetadataFetchFailure } from "../../application/ports/metadata-fetcher.ts";
import { isLoopbackHttpUrl } from "../../domain/registry/registration-fields.ts";
import { metadataFailure } from "./metadata-failure.ts";
import { forbiddenAddressReason } from "./ip-address-rules.ts";

/** Longest URL (after IPFS expansion or redirect resolution) the fetcher will request. */
export const MAX_METADATA_URL_LENGTH = 2048;

/**
 * An https URL that passed the static rules. `ip` is set when the host is an IP literal (already
 * checked); otherwise `hostname` still has to be resolved and its addresses checked.
 */
export type FetchTarget = Readonly<{ url: URL; hostname: string; ip: string | null }>;

export type TargetRules = Readonly<{
  /** Normalised IPFS gateway: https, no credentials, path ending in `/`. */
  gateway: URL;
  allowedPorts: readonly number[];
  /** METADATA_ALLOW_LOOPBACK (never in production): `http://127.0.0.1` and `http://localhost` URIs, any port. */
  allowLoopbackHttp: boolean;
}>;

/** A CID in any multibase the gateways accept (base58btc, base32, base36): letters and digits only. */
const CID = /^[A-Za-z0-9]{1,128}$/;
const IPV4_LITERAL = /^\d+\.\d+\.\d+\.\d+$/;

/**
 * The first URL to request for a client's metadata URI: `https:` as given, `ipfs://<cid>[/path]`
 * through the gateway, anything else refused.
 *
 * @example
 * targetOfMetadataUri("ipfs://bafy.../agent.json", rules); // url: https://ipfs.io/ipfs/bafy.../agent.json
 */
export function targetOfMetadataUri(uri: string, rules: TargetRules): FetchTarget | MetadataFetchFailure {
  if (uri.length > MAX_METADATA_URL_LENGTH) return metadataFailure("METADATA_URI_INVALID", "the metadata URI is too long");
  const url = URL.parse(uri);
  if (url === null) return metadataFailure("METADATA_URI_INVALID", "the metadata URI is not a valid URL");
  if (url.protocol === "ipfs:") {
    const viaGateway = gatewayUrlOf(url, rules.gateway);
    return "code" in viaGateway ? viaGateway : checkHttpsUrl(viaGateway, rules);
  }
  if (rules.allowLoopbackHttp && isLoopbackHttpUrl(url)) return loopbackTarget(url);
  return checkHttpsUrl(url, rules);
}

/** A development URI on this machine, pinned to 127.0.0.1 (`localhost` is never resolved). */
function loopbackTarget(url: URL): FetchTarget {
  url.hash = "";
  return { url, hostname: "127.0.0.1", ip: "127.0.0.1" };
}

/**
 * The next URL after a redirect, resolved against the URL that answered it and held to the same
 * rules (so an https -> http downgrade or a hop to a private address is refused).
 */
export function targetOfRedirect(location: string, from: URL, rules: TargetRules): FetchTarget | MetadataFetchFailure {
  const url = URL.parse(location, from);
  if (url === null) return metadataFailure("METADATA_URI_INVALID", "a redirect of the metadata URI points to an invalid URL");
  if (url.href.length > MAX_METADATA_URL_LENGTH) return metadataFailure("METADATA_URI_INVALID", "a redirect of the metadata URI is too long");
  // SECURITY: only a loopback origin may redirect to loopback, so a public host cannot steer even a
  // development service into the services listening on its machine.
  if (rules.allowLoopbackHttp && isLoopbackHttpUrl(url) && isLoopbackHttpUrl(from)) return loopbackTarget(url);
  return checkHttpsUrl(url, rules);
}

/**
 * Parses and normalises IPFS_GATEWAY_URL at boot; throws (naming the setting, never its value)
 * when it is not a plain https URL on port 443.
 */
export function parseGatewayUrl(gatewayUrl: string): URL {
  const url = URL.parse(gatewayUrl);
  const plain = url !== null && url.protocol === "https:" && url.username === "" && url.password === "" && url.port === "";
  if (url === null || !plain || url.search !== "" || url.hash !== "") {
    throw new Error("IPFS_GATEWAY_URL must be an https URL on port 443 without credentials, query or fragment");
  }
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  return url;
}

function gatewayUrlOf(url: URL, gateway: URL): URL | MetadataFetchFailure {
  // SECURITY: the CID becomes a path segment under the operator's gateway, so it is restricted to
  // letters and digits: no `@`, `/`, `:` or `..` that could move the request to another host or path.
  if (!CID.test(url.host) || url.username !== "" || url.password !== "" || url.port !== "") {
    return metadataFailure("METADATA_URI_INVALID", "an ipfs URI must be ipfs://<cid>[/path]");
  }
  // The path is already dot-segment-normalised and percent-encoded by the URL parser; query and
  // fragment are dropped because the content is addressed by CID and path alone.
  const resolved = new URL(`${url.host}${url.pathname}`, gateway);
  if (resolved.origin !== gateway.origin || !resolved.pathname.startsWith(`${gateway.pathname}${url.host}`)) {
    return metadataFailure("METADATA_URI_INVALID", "an ipfs URI must be ipfs://<cid>[/path]");
  }
  return resolved;
}

function checkHttpsUrl(url: URL, rules: TargetRules): FetchTarget | MetadataFetchFailure {
  // SECURITY: https only. http: would let a network attacker swap the document after we hash it
  // (and reaches plain-text internal services); file:, data:, ftp:, gopher: etc. are other SSRF vectors.
  if (url.protocol !== "https:") {
    const allowed = rules.allowLoopbackHttp ? "https, ipfs, or http to 127.0.0.1 or localhost" : "https or ipfs only";
    return metadataFailure("METADATA_SCHEME_FORBIDDEN", `the metadata URI scheme ${schemeName(url)} is not allowed (${allowed})`);
  }
  // SECURITY: credentials in the URL would be sent to whoever the host is; the service never
  // authenticates anywhere on a client's behalf.
  if (url.username !== "" || url.password !== "") {
    return metadataFailure("METADATA_URI_INVALID", "the metadata URI may not contain credentials");
  }
  // SECURITY: port 443 only, so the service cannot be used to probe other services on public hosts.
  const port = url.port === "" ? 443 : Number(url.port);
  if (!rules.allowedPorts.includes(port)) {
    return metadataFailure("METADATA_PORT_FORBIDDEN", "the metadata URI must use the default https port");
  }
  url.hash = "";
  const host = url.hostname;
  if (host.startsWith("[") || IPV4_LITERAL.test(host)) {
    // WHATWG URL already turned 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 into 127.0.0.1 and
    // compressed IPv6, so one canonical check covers every notation.
    const ip = host.startsWith("[") ? host.slice(1, -1) : host;
    if (forbiddenAddressReason(ip) !== null) return addressForbidden();
    return { url, hostname: ip, ip };
  }
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  // SECURITY: single-label names ("metadata", "redis") are completed by the resolver's search
  // domains into internal names; `localhost` names are loopback by definition (RFC 6761).
  if (!name.includes(".") || name === "localhost" || name.endsWith(".localhost")) return addressForbidden();
  return { url, hostname: host, ip: null };
}

function addressForbidden(): MetadataFetchFailure {
  return metadataFailure("METADATA_ADDRESS_FORBIDDEN", "the metadata host is not a public internet address");
}

function schemeName(url: URL): string {
  const scheme = url.protocol.slice(0, -1);
  return /^[a-z][a-z0-9+.-]{0,15}$/.test(scheme) ? scheme : "(other)";
}
