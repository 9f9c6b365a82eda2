import { Elysia } from "elysia";
import { errorResponse } from "../http-error.ts";

const PREFLIGHT_MAX_AGE_SECONDS = 86_400;
const ALLOWED_METHODS = "GET, HEAD, POST, OPTIONS";

/** Which browser origins may call the write and sign-in routes: a list (AUTH_ALLOWED_ORIGINS), or `*` for any. */
export type CorsPolicy = Readonly<{ allowedOrigins: readonly string[] | "*" }>;

/** Read methods: what a browser may do from any origin on the registry's read routes. */
const READ_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);
/** The one read route that is not public: the signed-in wallet's record. */
const USERS_ME = "/users/me";

/**
 * CORS for the registry interface. Reads (GET /agents..., categories, /health) stay open to every
 * origin (`*`). SECURITY: the write and sign-in routes (POST /agents/register, /auth/challenge,
 * /auth/token, and GET /users/me) are limited per client address, so any website calling them
 * from its visitors' browsers spends their quota (and signs them up for challenges they never
 * asked for); they answer only origins in AUTH_ALLOWED_ORIGINS, echoing the origin with
 * `Vary: Origin`. A request or preflight from another origin gets a 403 in the error shape and no
 * Access-Control-Allow-Origin: the refusal happens on the server, because a body sent without a
 * Content-Type (a simple request, no preflight) would otherwise still reach the handler. A request
 * without an Origin header (curl, a server, an SDK) is no browser's cross-origin call and passes.
 * Any non-read method counts as a write, so no path spelling can make a POST an open route.
 * Preflights are answered before routing; every other response (including 4xx from the error
 * layer) carries the allow-origin header, so browsers can read errors.
 */
export function registryCors(policy: CorsPolicy) {
  const allowed = policy.allowedOrigins === "*" ? null : new Set(policy.allowedOrigins);
  const isAllowed = (origin: string) => allowed === null || allowed.has(origin);
  return new Elysia({ name: "registry-cors" }).onRequest(({ request, set }) => {
    const origin = request.headers.get("origin");
    const preflight = request.method === "OPTIONS";
    const method = preflight ? (request.headers.get("access-control-request-method") ?? "GET").toUpperCase() : request.method;
    if (!isRestricted(method, request.url)) {
      if (preflight) return preflightResponse(request, "*");
      set.headers["access-control-allow-origin"] = "*";
      return undefined;
    }
    set.headers["vary"] = "Origin";
    if (origin === null) return preflight ? preflightResponse(request, null) : undefined;
    if (!isAllowed(origin)) return refused(origin, method, request.url);
    const allowOrigin = allowed === null ? "*" : origin;
    if (preflight) return preflightResponse(request, allowOrigin);
    set.headers["access-control-allow-origin"] = allowOrigin;
    return undefined;
  });
}

function isRestricted(method: string, url: string): boolean {
  if (!READ_METHODS.has(method)) return true;
  return pathOf(url).replace(/\/+$/, "") === USERS_ME;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

function refused(origin: string, method: string, url: string): Response {
  // The origin is echoed only as far as an origin goes: scheme, host and port, printable ASCII.
  const shown = /^[!-~]{1,200}$/.test(origin) ? origin : "this origin";
  const response = errorResponse(403, `${shown} may not call ${method} ${pathOf(url)} from a browser: it is not in AUTH_ALLOWED_ORIGINS`);
  response.headers.set("vary", "Origin");
  return response;
}

/** A preflight's answer; `allowOrigin` null answers a preflight that carried no Origin (not a browser's). */
function preflightResponse(request: Request, allowOrigin: string | null): Response {
  const requested = request.headers.get("access-control-request-headers");
  const headers: Record<string, string> = {
    "access-control-allow-methods": ALLOWED_METHODS,
    // Echoing only syntactically plain header names; anything else falls back to the safe default.
    "access-control-allow-headers": requested && /^[A-Za-z0-9\-, ]{1,200}$/.test(requested) ? requested : "Content-Type",
    "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
    vary: allowOrigin === "*" ? "Access-Control-Request-Headers" : "Origin, Access-Control-Request-Headers",
  };
  if (allowOrigin !== null) headers["access-control-allow-origin"] = allowOrigin;
  return new Response(null, { status: 204, headers });
}
