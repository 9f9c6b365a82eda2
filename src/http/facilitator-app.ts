import { Elysia } from "elysia";
import type { HealthProbes } from "../application/health.ts";
import type { Logger } from "../application/ports/logger.ts";
import { errorLayer } from "./error-layer.ts";
import { type Metrics, createMetrics } from "./metrics.ts";
import { observability } from "./observability.ts";
import { type FacilitatorSettleDeps, facilitatorSettleRoutes } from "./facilitator/settle-routes.ts";
import { type FacilitatorVerifyDeps, facilitatorVerifyRoutes } from "./facilitator/verify-routes.ts";
import { healthRoutes } from "./health-routes.ts";
import { type ApiKeyHashes, apiKeyGuard } from "./facilitator/api-key-guard.ts";

export type FacilitatorAppDeps = FacilitatorVerifyDeps &
  FacilitatorSettleDeps &
  Readonly<{ logger: Logger; health: HealthProbes; version: string; metrics?: Metrics; apiKeys?: ApiKeyHashes | null }>;

/** The facilitator interface: /supported, /verify, /settle, /health. */
export function createFacilitatorApp(deps: FacilitatorAppDeps) {
  return new Elysia()
    .use(errorLayer(deps.logger))
    .use(observability(deps.logger, deps.metrics ?? createMetrics(), "facilitator"))
    .use(apiKeyGuard(deps.apiKeys ?? null))
    .use(healthRoutes(deps.health, deps.version))
    .use(facilitatorVerifyRoutes(deps))
    .use(facilitatorSettleRoutes(deps));
}
