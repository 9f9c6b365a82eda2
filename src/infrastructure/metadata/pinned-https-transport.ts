import type { ClientRequest, IncomingMessage } from "node:http";
import { type RequestOptions, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "./host-resolver.ts";

/** One HTTP answer whose body has not been read yet. `close()` drops the connection without reading further. */
export type HttpsExchange = Readonly<{
  status: number;
  /** Lower-case header names; repeated headers joined by the runtime. */
  header(name: string): string | null;
  body: AsyncIterable<Uint8Array>;
  close(): void;
}>;

export type PinnedRequest = Readonly<{
  url: URL;
  /** The only addresses the connection may use: the ones the caller resolved and checked. */
  addresses: readonly ResolvedAddress[];
  headers: Readonly<Record<string, string>>;
  signal: AbortSignal;
}>;

/** Sends one GET and resolves at the response head; never follows redirects. */
export type PinnedHttpsTransport = (request: PinnedRequest) => Promise<HttpsExchange>;

export type PinnedHttpsTransportOptions = Readonly<{
  /** Extra trusted CA certificates (PEM). Tests only: production trusts the runtime's roots. */
  ca?: string;
}>;

/**
 * GET over node:https with a `lookup` that answers only the addresses already checked, so the
 * address that was vetted is the address that is connected to: a DNS answer that changes between
 * the check and the connection (DNS rebinding) is never consulted. TLS still verifies the
 * certificate against the URL's host name (SNI and hostname check use `url.hostname`).
 *
 * Bun honours `lookup` for node:https (tests/metadata/loopback-tls-server.test.ts shows it against
 * a real TLS server: a name no DNS knows connects to its pinned address, and `localhost` pinned to
 * 127.0.0.2 is refused while pinned to 127.0.0.1 it connects).
 *
 * @example
 * const exchange = await transport({ url, addresses: [{ address: "93.184.216.34", family: 4 }], headers, signal });
 */
export function createPinnedHttpsTransport(options: PinnedHttpsTransportOptions = {}): PinnedHttpsTransport {
  return (request) =>
    exchangeFor(request.signal, (onResponse) => {
      const { url } = request;
      const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
      const requestOptions: RequestOptions = {
        method: "GET",
        // Explicit: with `agent: false` and a port, msw's interceptor under Bun reads the request as http.
        protocol: "https:",
        hostname,
        port: url.port === "" ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: request.headers,
        // SECURITY: a fresh connection every time; a pooled socket must not carry one request's
        // address decision over to another host's request.
        agent: false,
        lookup: pinnedLookup(hostname, request.addresses),
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      };
      return httpsRequest(requestOptions, onResponse);
    });
}

/**
 * Sends the GET `start` builds and answers its response head as an exchange; the deadline
 * (`signal`) destroys the request until the head arrives, and the body after (exchangeOf).
 */
export function exchangeFor(signal: AbortSignal, start: (onResponse: (response: IncomingMessage) => void) => ClientRequest): Promise<HttpsExchange> {
  return new Promise<HttpsExchange>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const outgoing = start((response) => {
      signal.removeEventListener("abort", abort);
      resolve(exchangeOf(response, () => outgoing.destroy(), signal));
    });
    const abort = () => outgoing.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", abort, { once: true });
    outgoing.on("error", (error) => {
      signal.removeEventListener("abort", abort);
      reject(error);
    });
    outgoing.end();
  });
}

/**
 * SECURITY: DNS rebinding. Answers the connection's lookup from the vetted list only, and refuses
 * any other name, so no second DNS query can hand the socket a different (internal) address.
 */
export function pinnedLookup(expectedHostname: string, addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = familyOf(options.family);
    const allowed = addresses.filter((a) => family === 0 || a.family === family);
    const first = allowed[0];
    if (hostname !== expectedHostname || first === undefined) {
      const error: NodeJS.ErrnoException = Object.assign(new Error(`no vetted address for ${hostname}`), { code: "ENOTFOUND" });
      return callback(error, "", 0);
    }
    if (options.all === true) return callback(null, allowed.map((a) => ({ address: a.address, family: a.family })));
    return callback(null, first.address, first.family);
  };
}

function familyOf(family: number | string | undefined): 0 | 4 | 6 {
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return 0;
}

/** A response head as an {@link HttpsExchange}; the deadline (`signal`) also cuts its body. */
export function exchangeOf(response: IncomingMessage, destroyRequest: () => void, signal: AbortSignal): HttpsExchange {
  const close = () => {
    signal.removeEventListener("abort", onAbort);
    response.destroy();
    destroyRequest();
  };
  // The deadline also covers the body: an origin that trickles bytes is cut at the timeout.
  const onAbort = () => response.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
  signal.addEventListener("abort", onAbort, { once: true });
  response.once("close", () => signal.removeEventListener("abort", onAbort));
  if (signal.aborted) onAbort();
  return Object.freeze({
    status: response.statusCode ?? 0,
    header(name: string): string | null {
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
    body: response,
    close,
  });
}
