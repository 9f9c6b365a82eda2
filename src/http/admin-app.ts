import { errorResponse } from "./http-error.ts";
import { isOperationsPath } from "./operations-surface.ts";

type Handles = Readonly<{ handle(request: Request): Response | Promise<Response> }>;

/** The interfaces this process serves, each as its `only` instance (operations-surface.ts). */
export type AdminInterfaces = Readonly<{ facilitator?: Handles; registry?: Handles }>;

/**
 * ADMIN_PORT: GET /metrics (the process's one registry), and each interface's OpenAPI document
 * and page under its name: `/facilitator/openapi`, `/facilitator/docs`, `/registry/openapi`,
 * `/registry/docs`. A process serving one interface (ROLE=facilitator or registry) also answers
 * `/openapi` and `/docs` with it. The page loads its document by a relative URL, so it works under
 * either path; its script and stylesheet (`/docs/assets/*`) are the same for both interfaces.
 */
export function createAdminFetch(interfaces: AdminInterfaces): (request: Request) => Promise<Response> {
  const present = (["facilitator", "registry"] as const).filter((name) => interfaces[name] !== undefined);
  const served = ["/metrics", ...present.flatMap((name) => [`/${name}/openapi`, `/${name}/docs`])].join(", ");
  return async (request) => {
    const url = new URL(request.url);
    const { target, path } = route(interfaces, present, url.pathname);
    if (!target || !isOperationsPath(path)) return errorResponse(404, `no route for ${request.method} ${url.pathname}; this port serves ${served}`);
    // The interface's instance answers operations paths only (its own gate), whatever reaches it.
    return target.handle(new Request(`http://localhost${path}${url.search}`, { method: request.method, headers: request.headers }));
  };
}

function route(interfaces: AdminInterfaces, present: readonly ("facilitator" | "registry")[], path: string): { target: Handles | undefined; path: string } {
  const prefixed = /^\/(facilitator|registry)(\/.*)$/.exec(path);
  if (prefixed) return { target: interfaces[prefixed[1] as "facilitator" | "registry"], path: prefixed[2] ?? "/" };
  // Unprefixed: the one interface, or what both interfaces serve alike.
  const shared = path === "/metrics" || path.startsWith("/docs/assets/");
  const name = present.length === 1 || shared ? present[0] : undefined;
  return { target: name ? interfaces[name] : undefined, path };
}
