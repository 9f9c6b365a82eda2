import { parseIpAddress } from "../domain/ip-address.ts";

/**
 * The peer address of each request, handed over by the listener (Bun and Deno report it to the
 * server's fetch handler, not to the app) and looked up by the routes that rate-limit per client.
 */
export type ClientAddresses = Readonly<{
  remember(request: Request, address: string | null): void;
  of(request: Request): string | null;
}>;

export function createClientAddresses(): ClientAddresses {
  // Weak: an entry lives as long as its request.
  const byRequest = new WeakMap<Request, string>();
  return Object.freeze({
    remember(request: Request, address: string | null) {
      if (address) byRequest.set(request, address);
    },
    of: (request: Request) => byRequest.get(request) ?? null,
  });
}

/**
 * The key a per-client limit counts under: the client's network (see `clientNetworkOf`) of the
 * last X-Forwarded-For hop when the operator says a proxy appends it (RATE_LIMIT_TRUST_FORWARDED_FOR),
 * else of the socket peer. A request with neither (an in-process call) shares one key, which fails
 * closed: it is limited, never unlimited.
 */
export function clientKey(request: Request, addressOf: (request: Request) => string | null, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const hops = request.headers.get("x-forwarded-for")?.split(",").map((hop) => hop.trim()).filter((hop) => hop !== "");
    const last = hops?.at(-1);
    if (last) return `ip:${clientNetworkOf(last)}`;
  }
  const peer = addressOf(request);
  return `ip:${peer === null ? "unknown" : clientNetworkOf(peer)}`;
}

/** The longest text a key keeps of something that is not an address (a counter key stays small). */
const MAX_UNPARSED_KEY = 64;
const WITH_PORT = /^\[([0-9A-Fa-f:.]+(?:%[^\]]*)?)\](?::\d{1,5})?$|^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;

/**
 * SECURITY: the unit one client is counted as. An IPv6 host is normally given a whole /64 and may
 * use any address in it (privacy addresses even rotate by themselves), so counting per address gave
 * one client 2^64 quotas: an IPv6 client counts as its /64 (`2001:db8:1:2::/64`). An IPv4-mapped
 * IPv6 address (`::ffff:203.0.113.7`, how a dual-stack socket reports an IPv4 peer) is that IPv4
 * address. A port (`203.0.113.7:5000`, `[2001:db8::1]:443`, as some proxies write X-Forwarded-For)
 * and an IPv6 zone are dropped; text that is no address counts as itself.
 *
 * @example
 * clientNetworkOf("2001:db8:1:2:aaaa::1"); // "2001:db8:1:2::/64"
 * clientNetworkOf("::ffff:203.0.113.7");   // "203.0.113.7"
 */
export function clientNetworkOf(address: string): string {
  const match = WITH_PORT.exec(address);
  const bare = match ? (match[1] ?? match[2] ?? address) : address;
  const bytes = parseIpAddress(bare);
  if (bytes === null) return address.slice(0, MAX_UNPARSED_KEY);
  if (bytes.length === 4) return bytes.join(".");
  if (isIpv4Mapped(bytes)) return bytes.subarray(12).join(".");
  const groups = [0, 2, 4, 6].map((i) => (((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return `${groups.join(":")}::/64`;
}

/** `::ffff:0:0/96`: ten zero bytes, two 0xff, then the IPv4 address. */
function isIpv4Mapped(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** For an app served without a listener that reports peers (tests through app.handle). */
export const noAddress = (_request: Request): string | null => null;
