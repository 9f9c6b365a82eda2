import { Elysia, StatusMap } from "elysia";
import { type EnterLogContext, noLogContext } from "../application/ports/log-context.ts";
import type { Logger } from "../application/ports/logger.ts";
import { type Metrics, noMetrics } from "../application/ports/metrics.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Handed in by the composition root, which owns the adapters: the service passes its Prometheus
 * metrics and the logging adapter's context, an app built alone for a test may pass neither.
 */
export type ObservabilityDeps = Readonly<{ logger: Logger; metrics?: Metrics; enterLogContext?: EnterLogContext }>;

/**
 * Request ids (taken from `x-request-id` when it is sane, else generated, and echoed back, and
 * carried by every log line written while the request is served), request counters and latency
 * histograms by route, one access-log line per request at `info`, and (with `serveMetrics`)
 * GET /metrics in the format of `metrics`.
 */
export function observability(deps: ObservabilityDeps, service: string, serveMetrics = true) {
  const { logger, metrics = noMetrics, enterLogContext = noLogContext } = deps;
  const started = new WeakMap<Request, { at: number; id: string }>();
  return new Elysia({ name: `observability-${service}` })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      started.set(request, { at: performance.now(), id });
      set.headers["x-request-id"] = id;
      // The rest of this request's execution (routes, use cases, the error layer) logs with its id.
      enterLogContext({ requestId: id });
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const start = started.get(request);
      if (!start) return;
      const status = String(sentStatus(responseValue, set.status));
      const labels = { service, method: request.method, route: route || "unmatched", status };
      const seconds = (performance.now() - start.at) / 1000;
      metrics.increment("http_requests_total", "HTTP requests answered", labels);
      metrics.observe("http_request_duration_seconds", "HTTP request latency", { service, route: labels.route }, seconds);
      // The access log: one line per request. The route is the pattern (never the path, which
      // carries ids), so lines group by endpoint; the request id ties it to the request's other lines.
      logger.info("request", { requestId: start.id, ...labels, duration_ms: Math.round(seconds * 1000) });
    })
    .use(serveMetrics ? metricsRoute(metrics) : new Elysia());
}

function metricsRoute(metrics: Metrics) {
  return new Elysia().get("/metrics", async ({ set }) => {
    set.headers["content-type"] = metrics.contentType;
    return metrics.render();
  });
}

/**
 * The status the client received. A handler that returns a Response sets its own status,
 * which `set.status` does not see; the error layer writes the status it answers into `set`.
 */
function sentStatus(responseValue: unknown, status: number | keyof typeof StatusMap | undefined): number {
  if (responseValue instanceof Response) return responseValue.status;
  if (typeof status === "string") return StatusMap[status] ?? 200;
  return status ?? 200;
}
