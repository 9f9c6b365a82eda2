import { Elysia } from "elysia";
import type { HealthProbes } from "../application/health.ts";
import { apiDocs } from "./api-docs.ts";
import { APP_CONFIG } from "./app-config.ts";
import { errorLayer } from "./error-layer.ts";
import { type ObservabilityDeps, observability } from "./observability.ts";
import { type OperationsSurface, operationsOnly } from "./operations-surface.ts";
import { healthRoutes } from "./health-routes.ts";
import { type RegistryRoutesDeps, registryRoutes } from "./registry/registry-routes.ts";
import { type RegisterRoutesDeps, registerRoutes } from "./registry/register-routes.ts";
import { type AuthRoutesDeps, authRoutes } from "./registry/auth-routes.ts";
import { type UsersRoutesDeps, usersRoutes } from "./registry/users-routes.ts";
import { type CorsPolicy, registryCors } from "./registry/registry-cors.ts";

export type RegistryAppDeps = RegistryRoutesDeps & Partial<RegisterRoutesDeps> & ObservabilityDeps & Readonly<{ health: HealthProbes; version: string }> &
  Readonly<{ auth?: AuthRoutesDeps & UsersRoutesDeps }> &
  /** Origins that may call the write and sign-in routes from a browser (AUTH_ALLOWED_ORIGINS); none when absent. */
  Readonly<{ cors?: CorsPolicy }>;

const unlimited = Object.freeze({ allow: async () => true });

/**
 * The registry interface: agent reads, categories, registration, sign-in, /health, and its
 * operations routes /metrics, /openapi and /docs where `surface` says (operations-surface.ts).
 * Its document carries the service's version (package.json), passed as `version`.
 */
export function createRegistryApp(deps: RegistryAppDeps, surface: OperationsSurface = "serve") {
  return new Elysia(APP_CONFIG).use(errorLayer(deps.logger))
    // After observability, so a preflight or a refused origin still gets a request id and is counted.
    .use(observability(deps, surface === "only" ? "admin" : "registry", surface !== "omit"))
    .use(surface === "only" ? operationsOnly() : new Elysia())
    .use(registryCors(deps.cors ?? { allowedOrigins: [] }))
    .use(healthRoutes(deps.health, deps.version)).use(registryRoutes(deps))
    .use(
      registerRoutes({
        registration: deps.registration ?? null,
        rateLimit: deps.rateLimit ?? unlimited,
        trustForwardedFor: deps.trustForwardedFor ?? false,
        allowLoopbackMetadata: deps.allowLoopbackMetadata ?? false,
        ...(deps.clientAddressOf ? { clientAddressOf: deps.clientAddressOf } : {}),
      }),
    )
    .use(authRoutes(deps.auth && deps.clientAddressOf ? { ...deps.auth, clientAddressOf: deps.clientAddressOf } : deps.auth))
    .use(usersRoutes(deps.auth))
    .use(
      apiDocs({
        enabled: surface !== "omit",
        name: "registry",
        title: "Agent registry API (Solana)",
        version: deps.version,
        description:
          "AI agents registered on-chain as NFTs (x84 registry program): search, reputation, feedback and services, read from an index refreshed every 30 s; " +
          "building agent registrations; Sign-In With Solana. Errors have the shape {statusCode, message, error}.",
        tags: [
          { name: "agents", description: "the registry's agents, categories, feedback and services" },
          { name: "registration", description: "registering a new agent" },
          { name: "auth", description: "Sign-In With Solana" },
          { name: "users", description: "the signed-in wallet" },
        ],
        securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "an access token from POST /auth/token" } },
      }),
    );
}
