import { Elysia } from "elysia";

const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/**
 * CORS for the registry interface, which browsers call from any origin: reads, and the wallet
 * flows (POST /agents/register, /auth/*) that send JSON and a bearer token but never cookies,
 * so `*` is safe. Preflights are answered before routing; every response
 * (including 4xx from the error layer) gets the allow-origin header so browsers can read errors.
 */
export function readCors() {
  return new Elysia({ name: "registry-read-cors" })
    .onRequest(({ request, set }) => {
      if (request.method === "OPTIONS") return preflight(request);
      set.headers["access-control-allow-origin"] = "*";
      return undefined;
    });
}

function preflight(request: Request): Response {
  const requested = request.headers.get("access-control-request-headers");
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, HEAD, POST, OPTIONS",
      // Echoing only syntactically plain header names; anything else falls back to the safe default.
      "access-control-allow-headers": requested && /^[A-Za-z0-9\-, ]{1,200}$/.test(requested) ? requested : "Content-Type",
      "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
      vary: "Access-Control-Request-Headers",
    },
  });
}
