import { Elysia } from "elysia";
import { errorResponse } from "./http-error.ts";

/**
 * Where an interface's operations routes (GET /metrics, /openapi, /docs and /docs/assets/*) are
 * served. `/metrics` shows the fee payers' balances and spend and the documents map every route,
 * so in production they live on ADMIN_PORT only (docs/deploy.md):
 * - `serve`: the public port serves them beside the interface (outside production);
 * - `omit`: the public port in production: the routes are not registered at all, so no path
 *   spelling (`/metrics/`, `/%6detrics`) can reach them;
 * - `only`: the admin port: every route is registered (the OpenAPI document is generated from
 *   them) but only the operations paths answer.
 */
export type OperationsSurface = "serve" | "omit" | "only";

const OPERATIONS_PATHS: ReadonlySet<string> = new Set(["/metrics", "/openapi", "/docs"]);
const DOCS_ASSET = /^\/docs\/assets\/[^/]+$/;

/** Whether `path` (exactly, no normalisation) is an operations route. */
export function isOperationsPath(path: string): boolean {
  return OPERATIONS_PATHS.has(path) || DOCS_ASSET.test(path);
}

/**
 * The gate of an `only` instance: anything but GET or HEAD of an operations path is a 404 before
 * routing, parsing or validation. SECURITY: an allowlist on the exact path fails closed: a path
 * the router would match under another spelling is refused, never let through.
 */
export function operationsOnly() {
  return new Elysia({ name: "operations-only" }).onRequest(({ request, set }) => {
    const path = pathOf(request.url);
    if ((request.method === "GET" || request.method === "HEAD") && isOperationsPath(path)) return;
    set.status = 404;
    return errorResponse(404, `no route for ${request.method} ${path}`);
  });
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "this path";
  }
}
