import { Elysia } from "elysia";
import type { CurrentUserResult } from "../../application/auth/current-user.ts";
import { HttpError } from "../http-error.ts";

export type UsersRoutesDeps = Readonly<{ currentUser: (bearerToken: string | null) => Promise<CurrentUserResult> }>;

/** GET /users/me for a bearer token from POST /auth/token. Passing no deps mounts nothing. */
export function usersRoutes(deps: UsersRoutesDeps | undefined) {
  const plugin = new Elysia({ name: "users-routes" });
  if (!deps) return plugin;
  return plugin.get("/users/me", async ({ request, set }) => {
    set.headers["cache-control"] = "no-store";
    const result = await deps.currentUser(bearerToken(request.headers.get("authorization")));
    if (result.ok) return result.profile;
    if (result.reason === "AGENTS_UNAVAILABLE") throw new HttpError(503, result.message);
    // RFC 6750: a 401 for a bearer-protected resource names the scheme.
    set.headers["www-authenticate"] = 'Bearer realm="registry"';
    throw new HttpError(401, result.message);
  });
}

function bearerToken(header: string | null): string | null {
  const match = header?.match(/^Bearer\s+(\S{1,8192})\s*$/i);
  return match?.[1] ?? null;
}
