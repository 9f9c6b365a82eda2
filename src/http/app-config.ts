import type { ElysiaOpenAPIConfig } from "@elysiajs/openapi";

/**
 * Both interfaces' Elysia settings. `normalize: false`: Elysia would otherwise rewrite bodies and
 * responses to their schemas (dropping fields a schema does not name) on every request. Our
 * schemas say which objects are open (payment bodies keep unknown fields, as x402 requires) and
 * which are closed (responses), so a response with a field its schema lacks is a contract
 * violation (a 500, logged), not silently trimmed. It also keeps the /verify schema path as cheap
 * as the hand-written validation it replaced (docs/api-contract.md has the figures).
 */
export const APP_CONFIG = { normalize: false } as const;

type PathItem = NonNullable<NonNullable<ElysiaOpenAPIConfig["documentation"]>["paths"]>[string];

/** GET /metrics, served by observability.ts (no schema on the route), documented here. */
export const METRICS_PATH_ITEM: PathItem = {
  get: {
    operationId: "metrics",
    tags: ["operations"],
    summary: "Prometheus metrics (text exposition format)",
    responses: {
      200: {
        description: "every metric of the process (docs/observability.md)",
        content: {
          "text/plain; version=0.0.4; charset=utf-8": {
            schema: { type: "string" },
            example: '# HELP http_requests_total HTTP requests answered\n# TYPE http_requests_total counter\nhttp_requests_total{service="facilitator",method="POST",route="/verify",status="200"} 42\n',
          },
        },
      },
    },
  },
};
