import { Elysia } from "elysia";
import type { HealthProbes } from "../application/health.ts";
import type { Logger } from "../application/ports/logger.ts";
import { errorLayer } from "./error-layer.ts";
import { healthRoutes } from "./health-routes.ts";
import { type RegistryRoutesDeps, registryRoutes } from "./registry/registry-routes.ts";

export type RegistryAppDeps = RegistryRoutesDeps & Readonly<{ logger: Logger; health: HealthProbes; version: string }>;

/** The registry interface: agent reads, categories and /health. */
export function createRegistryApp(deps: RegistryAppDeps) {
  return new Elysia().use(errorLayer(deps.logger)).use(healthRoutes(deps.health, deps.version)).use(registryRoutes(deps));
}
