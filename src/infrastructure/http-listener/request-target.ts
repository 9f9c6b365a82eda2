import type { FetchHandler } from "./http-listener.ts";

/**
 * The origin of every URL the framework sees. Constant, never the client's Host header: what a
 * route is depends on the request target alone.
 */
export const FIXED_ORIGIN = "http://localhost";

/**
 * The Host values a request may carry: a registered name or IPv4 address (RFC 3986 unreserved
 * characters), or a bracketed IPv6 literal, with an optional port. Empty or absent is allowed
 * (HTTP/1.0, or a target without authority): the request target alone names the route anyway.
 */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{0,5})?$/;

/**
 * Hands the handler a request whose URL is `FIXED_ORIGIN` + the request target, or answers 400
 * for a Host header that is not a host.
 *
 * SECURITY: Bun and Deno build `request.url` from the Host header, and Elysia finds the path at
 * `url.indexOf("/", 11)`. With `Host: a`, `GET /xx/metrics` became `http://a/xx/metrics`, whose
 * "path" from index 11 is `/metrics`: a path rule in a proxy or WAF in front of us saw one route
 * and we served another. A Host such as `[`, `%` or `a b` made the URL unparseable, and the 404
 * handler threw (a 500, and outside production Bun's developer page with source lines). Deno
 * also splices `Host: a/b` or `a?b` into the URL's path and query.
 */
export function withFixedOrigin(fetch: FetchHandler): FetchHandler {
  return (request, connection) => {
    const host = request.headers.get("host");
    // Two Host lines reach us joined by ", " (Bun), which the pattern refuses as RFC 9112 asks.
    if (host !== null && host !== "" && !HOST.test(host)) return badRequest("invalid Host header");
    const target = requestTargetOf(request.url);
    if (target === null) return badRequest("invalid request target");
    // Built from its parts, not `new Request(url, request)`: that would follow request.signal,
    // which Deno aborts once the response is sent (see request-body-limit.ts).
    const init = { method: request.method, headers: request.headers, body: request.body, duplex: "half" } as RequestInit;
    let rebuilt: Request;
    try {
      rebuilt = new Request(FIXED_ORIGIN + target, init);
    } catch {
      return badRequest("invalid request target");
    }
    return fetch(rebuilt, connection);
  };
}

/**
 * The path and query of the URL the runtime built. Bun gives the bare target (`/x?y`) when it
 * could not build an absolute URL (no usable Host); otherwise the URL is `scheme://authority`
 * followed by the target (Deno also passes an absolute-form target through as the URL). The
 * authority holds no `/` once the Host has passed the pattern, so the first `/` after `//`
 * starts the target.
 */
function requestTargetOf(url: string): string | null {
  if (url.startsWith("/")) return url;
  const authority = url.indexOf("://");
  if (authority === -1) return null;
  const path = url.indexOf("/", authority + 3);
  return path === -1 ? null : url.slice(path);
}

/**
 * The error shape of both interfaces (src/http/http-error.ts), written here because this answer
 * is given before any route runs. `connection: close`: a client that sent such a request is not
 * one to keep talking to on the same connection.
 */
function badRequest(message: string): Response {
  return Response.json({ statusCode: 400, message, error: "Bad Request" }, { status: 400, headers: { connection: "close" } });
}
