import { Elysia } from "elysia";
import { type HealthProbes, checkHealth } from "../application/health.ts";

/** GET /health: 200 for ok and degraded, 503 when down, so orchestrators restart only a dead pod. */
export function healthRoutes(probes: HealthProbes, version: string) {
  return new Elysia().get("/health", async ({ set }) => {
    const report = await checkHealth(probes, version);
    set.status = report.status === "down" ? 503 : 200;
    return report;
  });
}
