import { Elysia } from "elysia";
import type { HealthProbes } from "../application/health.ts";
import type { Logger } from "../application/ports/logger.ts";
import { errorLayer } from "./error-layer.ts";
import { type Metrics, createMetrics } from "./metrics.ts";
import { observability } from "./observability.ts";
import { healthRoutes } from "./health-routes.ts";
import { type RegistryRoutesDeps, registryRoutes } from "./registry/registry-routes.ts";
import { type RegisterRoutesDeps, registerRoutes } from "./registry/register-routes.ts";
import { type AuthRoutesDeps, authRoutes } from "./registry/auth-routes.ts";
import { type UsersRoutesDeps, usersRoutes } from "./registry/users-routes.ts";

export type RegistryAppDeps = RegistryRoutesDeps & Partial<RegisterRoutesDeps> & Readonly<{ logger: Logger; health: HealthProbes; version: string; metrics?: Metrics }> &
  Readonly<{ auth?: AuthRoutesDeps & UsersRoutesDeps }>;

const unlimited = Object.freeze({ allow: async () => true });

/** The registry interface: agent reads, categories, registration and /health. */
export function createRegistryApp(deps: RegistryAppDeps) {
  return new Elysia().use(errorLayer(deps.logger))
    .use(observability(deps.logger, deps.metrics ?? createMetrics(), "registry")).use(healthRoutes(deps.health, deps.version)).use(registryRoutes(deps))
    .use(
      registerRoutes({
        registration: deps.registration ?? null,
        rateLimit: deps.rateLimit ?? unlimited,
        trustForwardedFor: deps.trustForwardedFor ?? false,
        ...(deps.clientAddressOf ? { clientAddressOf: deps.clientAddressOf } : {}),
      }),
    )
    .use(authRoutes(deps.auth && deps.clientAddressOf ? { ...deps.auth, clientAddressOf: deps.clientAddressOf } : deps.auth))
    .use(usersRoutes(deps.auth));
}
