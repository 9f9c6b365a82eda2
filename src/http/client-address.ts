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
 * The key a per-client limit counts under: the last X-Forwarded-For hop when the operator says a
 * proxy appends it (RATE_LIMIT_TRUST_FORWARDED_FOR), else the socket peer. A request with neither
 * (an in-process call) shares one key, which fails closed: it is limited, never unlimited.
 */
export function clientKey(request: Request, addressOf: (request: Request) => string | null, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const hops = request.headers.get("x-forwarded-for")?.split(",").map((hop) => hop.trim()).filter((hop) => hop !== "");
    const last = hops?.at(-1);
    if (last) return `ip:${last}`;
  }
  return `ip:${addressOf(request) ?? "unknown"}`;
}

/** For an app served without a listener that reports peers (tests through app.handle). */
export const noAddress = (_request: Request): string | null => null;
