import { Elysia } from "elysia";
import type { CurrentUserResult } from "../../application/auth/current-user.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import { UserView } from "./auth-models.ts";

export type UsersRoutesDeps = Readonly<{ currentUser: (bearerToken: string | null) => Promise<CurrentUserResult> }>;

/** GET /users/me for a bearer token from POST /auth/token. Passing no deps mounts nothing. */
export function usersRoutes(deps: UsersRoutesDeps | undefined) {
  const plugin = new Elysia({ name: "users-routes" });
  if (!deps) return plugin;
  return plugin.get(
    "/users/me",
    async ({ request, set }) => {
      set.headers["cache-control"] = "no-store";
      const result = await deps.currentUser(bearerToken(request.headers.get("authorization")));
      if (result.ok) return { ...result.profile, agents: [...result.profile.agents] };
      if (result.reason === "AGENTS_UNAVAILABLE") throw new HttpError(503, result.message);
      // RFC 6750: a 401 for a bearer-protected resource names the scheme.
      set.headers["www-authenticate"] = 'Bearer realm="registry"';
      throw new HttpError(401, result.message);
    },
    {
      response: {
        200: UserView,
        ...errorResponses([401, 403, 500, 503], {
          401: { when: "a missing, malformed, expired or forged token", message: "access token is invalid or expired" },
          503: { when: "the agents this wallet owns cannot be read right now", message: "the registry index is not available; retry shortly" },
        }),
      },
      detail: {
        operationId: "currentUser",
        tags: ["users"],
        summary: "The signed-in wallet's user record and the nftMints of the agents it owns",
        security: [{ bearerAuth: [] }],
      },
    },
  );
}

function bearerToken(header: string | null): string | null {
  const match = header?.match(/^Bearer\s+(\S{1,8192})\s*$/i);
  return match?.[1] ?? null;
}
