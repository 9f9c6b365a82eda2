import { Elysia } from "elysia";
import type { HealthProbes } from "../application/health.ts";
import { apiDocs } from "./api-docs.ts";
import { APP_CONFIG } from "./app-config.ts";
import { errorLayer } from "./error-layer.ts";
import { type ObservabilityDeps, observability } from "./observability.ts";
import { type OperationsSurface, operationsOnly } from "./operations-surface.ts";
import { type FacilitatorSettleDeps, facilitatorSettleRoutes } from "./facilitator/settle-routes.ts";
import { type FacilitatorVerifyDeps, facilitatorVerifyRoutes } from "./facilitator/verify-routes.ts";
import { healthRoutes } from "./health-routes.ts";
import { type ApiKeyHashes, apiKeyGuard, createApiKeyCallers } from "./facilitator/api-key-guard.ts";
import { type DiscoveryRoutesDeps, discoveryRoutes } from "./facilitator/discovery-routes.ts";

export type FacilitatorAppDeps = FacilitatorVerifyDeps &
  FacilitatorSettleDeps &
  ObservabilityDeps &
  Readonly<{ health: HealthProbes; version: string; apiKeys?: ApiKeyHashes | null; apiKeysRequired?: boolean }> &
  /** The Bazaar catalogue (DISCOVERY_ENABLED); its routes are absent without it. */
  Readonly<{ discovery?: DiscoveryRoutesDeps }>;

/** The facilitator interface's version (service-spec.md, Versioning 2), apart from the package's. */
export const FACILITATOR_API_VERSION = "0.2.0";

/**
 * The facilitator interface: /supported, /verify, /settle, /discovery/*, /health, and its operations routes
 * /metrics, /openapi, /docs where `surface` says (operations-surface.ts).
 */
export function createFacilitatorApp(deps: FacilitatorAppDeps, surface: OperationsSurface = "serve") {
  const apiKeyCallers = createApiKeyCallers();
  return new Elysia(APP_CONFIG)
    .use(errorLayer(deps.logger))
    .use(observability(deps, surface === "only" ? "admin" : "facilitator", surface !== "omit"))
    .use(surface === "only" ? operationsOnly() : new Elysia())
    .use(apiKeyGuard(deps.apiKeys ?? null, { required: deps.apiKeysRequired ?? true, callers: apiKeyCallers }))
    .use(healthRoutes(deps.health, deps.version))
    .use(facilitatorVerifyRoutes(deps))
    .use(facilitatorSettleRoutes({ ...deps, apiKeyCallers }))
    .use(deps.discovery ? discoveryRoutes(deps.discovery) : new Elysia())
    .use(
      apiDocs({
        enabled: surface !== "omit",
        name: "facilitator",
        title: "x402 payment facilitator (Solana)",
        version: FACILITATOR_API_VERSION,
        description:
          "Verifies and settles x402 payments on Solana (protocol v2; the v1 form is accepted as input). " +
          "Payment problems are answered 200 with a stable reason code; errors have the shape {statusCode, message, error}. " +
          "When the operator sets FACILITATOR_API_KEYS_FILE, /verify and /settle need `Authorization: Bearer <key>`.",
        tags: [
          { name: "payments", description: "verification and settlement" },
          { name: "discovery", description: "x402 Bazaar: resources declared in payments settled here, joined to the agent registry" },
        ],
        securitySchemes: {
          apiKey: { type: "http", scheme: "bearer", description: "opt-in (FACILITATOR_API_KEYS_FILE): required on /verify and /settle when configured" },
        },
      }),
    );
}
