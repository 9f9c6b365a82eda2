import { Elysia } from "elysia";
import { HttpError } from "../http-error.ts";

/** Name and SHA-256 (lowercase hex) of each accepted key. */
export type ApiKeyHashes = readonly Readonly<{ name: string; sha256: string }>[];

/**
 * The requests that presented a valid API key and the key's name: the settle route tells the fee
 * budget and records the key with the settlement; status lookups are scoped by it.
 */
export type ApiKeyCallers = Readonly<{ mark(request: Request, name: string): void; keyOf(request: Request): string | null }>;

export function createApiKeyCallers(): ApiKeyCallers {
  // Weak: a request's mark goes with it.
  const marked = new WeakMap<Request, string>();
  return Object.freeze({
    mark: (request: Request, name: string) => void marked.set(request, name),
    keyOf: (request: Request) => marked.get(request) ?? null,
  });
}

export type ApiKeyGuardOptions = Readonly<{
  /**
   * FACILITATOR_API_KEYS_REQUIRED (default true): without a key, /verify and /settle answer 401.
   * False admits callers without a key as anonymous (a wrong key is still 401), so that
   * FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT can keep a share of the budget for key holders.
   */
  required?: boolean;
  callers?: ApiKeyCallers;
}>;

const PROTECTED_PATHS: ReadonlySet<string> = new Set(["/verify", "/settle", "/settlements", "/settlements/:transaction"]);

/**
 * SECURITY: opt-in API keys (FACILITATOR_API_KEYS_FILE) for operators whose resource servers are
 * known: /verify and /settle then need `Authorization: Bearer <key>`. Keys are kept hashed, so the
 * file leaks nothing usable; the presented key is hashed and compared in constant time against
 * every entry. /supported, /health and /metrics stay open for probes and discovery.
 */
export function apiKeyGuard(keys: ApiKeyHashes | null, options: ApiKeyGuardOptions = {}) {
  const plugin = new Elysia({ name: "facilitator-api-keys" });
  const required = options.required ?? true;
  if (keys === null || keys.length === 0) return plugin;
  const digests = keys.map((key) => hexBytes(key.sha256));
  // SECURITY: decided on the matched route, not the request path: "/settle/" reaches the same
  // handler as "/settle", and a path check let it through without a key. On transform, the last
  // step before the body is checked against its schema: a caller without a key learns nothing
  // about what a valid body looks like (401, never a 400 naming fields).
  return plugin.onTransform({ as: "global" }, async ({ request, route }) => {
    if (!PROTECTED_PATHS.has(route)) return;
    const header = request.headers.get("authorization");
    if (header === null && !required) return;
    const presented = bearerToken(header);
    if (presented === null) throw new HttpError(401, "this facilitator requires an API key: Authorization: Bearer <key>");
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(presented)));
    let matched: string | null = null;
    digests.forEach((candidate, index) => {
      if (constantTimeEqual(candidate, digest)) matched = keys[index]?.name ?? null;
    });
    if (matched === null) throw new HttpError(401, "the API key is not valid");
    options.callers?.mark(request, matched);
  });
}

function bearerToken(header: string | null): string | null {
  const match = header?.match(/^Bearer\s+(\S{1,512})\s*$/i);
  return match?.[1] ?? null;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}
