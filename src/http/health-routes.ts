import { Elysia } from "elysia";
import { type HealthProbes, checkHealth, createReadinessCheck } from "../application/health.ts";
import { HealthDownModel, HealthReportModel, LivenessModel, ReadinessDownModel, ReadinessReportModel } from "./health-models.ts";

/**
 * Three answers for three questions, on both interfaces:
 * - GET /health/live (liveness): the process answers. It runs no probe, so an RPC or database
 *   outage can never make Kubernetes restart every pod at once.
 * - GET /health/ready (readiness): the dependencies this interface needs (`probes.readiness`);
 *   503 once one of them has failed `probes.failuresBeforeDown` probes in a row, so the pod leaves
 *   the Service's endpoints until it recovers (one failed probe is only `degraded`).
 * - GET /health: every check, the spec's shape; 200 for ok and degraded, 503 when down.
 */
export function healthRoutes(probes: HealthProbes, version: string) {
  // One per interface: it remembers each check's failures in a row.
  const readiness = createReadinessCheck(probes, version);
  return new Elysia()
    .get(
      "/health",
      async ({ set }) => answer(set, await checkHealth(probes, version)),
      {
        response: { 200: HealthReportModel, 503: HealthDownModel },
        detail: { operationId: "health", tags: ["health"], summary: "Every check (ledger, store, signer; counters with Redis); 200 for ok and degraded, 503 when down" },
      },
    )
    .get("/health/live", () => ({ status: "ok" as const }), {
      response: { 200: LivenessModel },
      detail: { operationId: "healthLive", tags: ["health"], summary: "Liveness: the process answers (no probe runs)" },
    })
    .get(
      "/health/ready",
      async ({ set }) => answer(set, await readiness()),
      {
        response: { 200: ReadinessReportModel, 503: ReadinessDownModel },
        detail: { operationId: "healthReady", tags: ["health"], summary: "Readiness: the checks this interface needs; 503 once one has failed several probes in a row (READINESS_FAILURE_THRESHOLD)" },
      },
    );
}

/** 503 when the report is down, so a load balancer takes this replica out; 200 otherwise (degraded included). */
function answer<Report extends Readonly<{ status: string }>>(set: { status?: number | string }, report: Report): Report {
  set.status = report.status === "down" ? 503 : 200;
  return report;
}
