/**
 * SECURITY: which browser origins may call the registry (whole service: buildService over the
 * embedded ledger and PGlite, app.handle). Reads stay open to every origin; the write and sign-in
 * routes (POST /agents/register, /auth/challenge, /auth/token, GET /users/me) answer only
 * AUTH_ALLOWED_ORIGINS (default AUTH_URI's origin), and refuse any other origin on the server, so
 * another website cannot spend its visitors' per-address quota, even with a no-preflight request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSigner } from "@solana/kit";
import { type TestService, startService } from "../settlement/support/service-harness.ts";

const ALLOWED = "https://dapp.example";
const OTHER = "https://evil.example";
const WRITE_ROUTES = [
  ["POST", "/agents/register"],
  ["POST", "/auth/challenge"],
  ["POST", "/auth/token"],
  ["GET", "/users/me"],
] as const;

let service: TestService;
beforeAll(async () => {
  service = await startService({
    AUTH_URI: "https://registry.example:8443",
    AUTH_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:5173`,
    AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "1",
    RATE_LIMIT_TRUST_FORWARDED_FOR: "true",
  });
}, 30_000);
afterAll(() => service?.dispose());

function call(method: string, path: string, headers: Record<string, string> = {}, body?: BodyInit): Promise<Response> {
  return service.registryApp.handle(new Request(`http://registry.test${path}`, { method, headers, ...(body === undefined ? {} : { body }) }));
}

function preflight(path: string, origin: string, method: string, requestHeaders = "content-type"): Promise<Response> {
  return call("OPTIONS", path, { origin, "access-control-request-method": method, "access-control-request-headers": requestHeaders });
}

describe("write and sign-in routes: AUTH_ALLOWED_ORIGINS only", () => {
  test("a listed origin's preflight is allowed and echoed, with Vary: Origin (every listed origin; AUTH_URI's origin is not listed here)", async () => {
    for (const [method, path] of WRITE_ROUTES) {
      for (const origin of [ALLOWED, "http://localhost:5173"]) {
        const response = await preflight(path, origin, method, method === "GET" ? "authorization" : "content-type");
        expect({ path, origin, status: response.status, allow: response.headers.get("access-control-allow-origin") }).toEqual({ path, origin, status: 204, allow: origin });
        expect(response.headers.get("vary")).toContain("Origin");
        expect(response.headers.get("access-control-allow-methods")).toContain(method);
      }
    }
    expect((await preflight("/auth/challenge", "https://registry.example:8443", "POST")).status).toBe(403);
  });

  test("any other origin's preflight gets a 403 in the error shape and no Access-Control-Allow-Origin", async () => {
    for (const [method, path] of WRITE_ROUTES) {
      const response = await preflight(path, OTHER, method);
      expect({ path, status: response.status, allow: response.headers.get("access-control-allow-origin") }).toEqual({ path, status: 403, allow: null });
      expect(await response.json()).toEqual({ statusCode: 403, error: "Forbidden", message: `${OTHER} may not call ${method} ${path} from a browser: it is not in AUTH_ALLOWED_ORIGINS` });
    }
    // Origins that look alike are other origins: another scheme, port or subdomain, and the opaque "null".
    for (const origin of ["http://dapp.example", "https://dapp.example:444", "https://sub.dapp.example", "https://dapp.example.evil.example", "null"]) {
      expect({ origin, status: (await preflight("/agents/register", origin, "POST")).status }).toEqual({ origin, status: 403 });
    }
  });

  test("another origin's request is refused before the handler: no quota spent, even sent without a Content-Type (no preflight)", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const body = JSON.stringify({ address: wallet });
    const client = { "x-forwarded-for": "203.0.113.50" };
    // A Blob without a type is a "simple" request a page can send cross-origin with no preflight.
    for (let i = 0; i < 3; i++) {
      const response = await call("POST", "/auth/challenge", { ...client, origin: OTHER }, new Blob([body]));
      expect(response.status).toBe(403);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
    // The limit is 1 a minute: had the refused calls reached the handler, this one would be a 429.
    const allowed = await call("POST", "/auth/challenge", { ...client, origin: ALLOWED, "content-type": "application/json" }, body);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect((await call("POST", "/agents/register", { ...client, origin: OTHER, "content-type": "application/json" }, "{}")).status).toBe(403);
    expect((await call("GET", "/users/me", { origin: OTHER, authorization: "Bearer x" })).status).toBe(403);
  });

  test("a request with no Origin (curl, a server, an SDK: not a browser's cross-origin call) is served, with no allow-origin", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const response = await call("POST", "/auth/challenge", { "x-forwarded-for": "203.0.113.51", "content-type": "application/json" }, JSON.stringify({ address: wallet }));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect((await call("GET", "/users/me")).status).toBe(401);
  });

  test("an allowed origin can read the errors too (a 401 from /users/me carries its allow-origin)", async () => {
    const response = await call("GET", "/users/me", { origin: ALLOWED });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
  });
});

describe("read routes stay open to every origin", () => {
  test("GET /agents..., /agents/categories and /health answer any origin with *, preflights too", async () => {
    for (const path of ["/agents", "/agents/categories", "/agents?limit=0", "/health"]) {
      const response = await call("GET", path, { origin: OTHER });
      expect({ path, allow: response.headers.get("access-control-allow-origin") }).toEqual({ path, allow: "*" });
    }
    const response = await preflight("/agents", OTHER, "GET");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("AUTH_ALLOWED_ORIGINS defaults and *", () => {
  test("unset: AUTH_URI's origin is allowed, any other refused; *: every origin, as before the setting", async () => {
    const byDefault = await startService({ AUTH_URI: "https://registry.example:8443/login" });
    const open = await startService({ AUTH_ALLOWED_ORIGINS: "*" });
    try {
      const preflightOn = (app: TestService, origin: string) =>
        app.registryApp.handle(new Request("http://registry.test/auth/challenge", { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } }));
      const own = await preflightOn(byDefault, "https://registry.example:8443");
      expect([own.status, own.headers.get("access-control-allow-origin")]).toEqual([204, "https://registry.example:8443"]);
      expect((await preflightOn(byDefault, ALLOWED)).status).toBe(403);
      const any = await preflightOn(open, OTHER);
      expect([any.status, any.headers.get("access-control-allow-origin")]).toEqual([204, "*"]);
    } finally {
      await Promise.all([byDefault.dispose(), open.dispose()]);
    }
  }, 60_000);
});
