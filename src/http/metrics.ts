/**
 * What the HTTP layer records and serves at GET /metrics: the Metrics port, and a Prometheus
 * registry of its own for an app built without one (tests; the service passes its registry).
 */
import { createPrometheusMetrics } from "../infrastructure/metrics/prometheus-metrics.ts";
import type { Metrics } from "../application/ports/metrics.ts";

export type { Labels, Metrics } from "../application/ports/metrics.ts";

export function createMetrics(): Metrics {
  return createPrometheusMetrics();
}
