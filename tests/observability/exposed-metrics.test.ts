// What GET /metrics exposes from a built service after one verify, one settle, one /health probe
// and one registry read; that the settlement's log lines carry the request id; and that the
// Grafana dashboard and the alert rules under deploy/observability query only metrics the
// service exposes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import { fundedPayment } from "../../fixtures/payments.ts";
import { metricNamesIn } from "./support/promql.ts";
import { type ObservedService, json, sampleNames, startObservedService } from "./support/observed-service.ts";

const DEPLOY = resolve(import.meta.dir, "../../deploy/observability");

let service: ObservedService;
let exposition = "";
let settleRequestId = "";

beforeAll(async () => {
  service = await startObservedService();
  const ledger = service.embeddedLedger;
  const feePayer = service.feePayers.addresses[0];
  if (!ledger || !feePayer) throw new Error("expected the embedded ledger and a development fee payer");
  const payment = await fundedPayment(ledger, feePayer);
  expect((await service.send("facilitator", "/verify", json(payment.body))).status).toBe(200);
  const settled = await service.send("facilitator", "/settle", { ...json(payment.body), headers: { "content-type": "application/json", "x-request-id": "settle-observed-1" } });
  expect(((await settled.json()) as { success: boolean }).success).toBe(true);
  settleRequestId = settled.headers.get("x-request-id") ?? "";
  expect((await service.send("facilitator", "/health")).status).toBe(200);
  expect((await service.send("registry", "/agents")).status).toBe(200);
  exposition = await service.scrape();
}, 30_000);

afterAll(async () => {
  await service?.dispose();
});

const sample = (pattern: RegExp) => exposition.split("\n").find((line) => pattern.test(line));

describe("GET /metrics of a built service after one settle (prom-client, one registry)", () => {
  test("the settle's log lines carry the request id of its HTTP request", () => {
    expect(settleRequestId).toBe("settle-observed-1");
    const settledLine = service.logs().find((line) => line["msg"] === "settled");
    expect(settledLine).toMatchObject({ component: "settlement", requestId: "settle-observed-1" });
    // Lines logged outside any request carry none.
    expect(service.logs().find((line) => line["msg"] === "using development fee payer" || line["msg"] === "generated development fee payer")?.["requestId"]).toBeUndefined();
  });

  test("the metrics kept from before, with their names and labels", () => {
    expect(sample(/^x402_verifications_total\{outcome="valid"\} 1$/)).toBeDefined();
    expect(sample(/^x402_settlements_total\{outcome="settled"\} 1$/)).toBeDefined();
    expect(sample(/^x402_fee_payer_lamports_spent_total\{outcome="settled",fee_payer="\w+"\} 10000$/)).toBeDefined();
    expect(sample(/^x402_fee_payer_balance_lamports\{fee_payer="\w+"\} \d+$/)).toBeDefined();
    expect(sample(/^http_requests_total\{service="facilitator",method="POST",route="\/settle",status="200"\} 1$/)).toBeDefined();
    expect(sample(/^http_request_duration_seconds_bucket\{le="\+Inf",service="registry",route="\/agents"\} 1$/)).toBeDefined();
  });

  test("the new instruments: settlement latency, in-flight gauge, signer by adapter, ledger by method, store by operation", () => {
    expect(sample(/^x402_settlement_duration_seconds_count\{outcome="settled"\} 1$/)).toBeDefined();
    expect(sample(/^x402_settlements_in_flight 0$/)).toBeDefined();
    expect(sample(/^x402_signer_duration_seconds_count\{adapter="local",outcome="ok"\} [1-9]/)).toBeDefined();
    expect(sample(/^x402_signer_healthy\{fee_payer="\w+",adapter="local"\} 1$/)).toBeDefined();
    expect(sample(/^x402_ledger_request_duration_seconds_count\{method="sendTransaction",outcome="ok"\} 1$/)).toBeDefined();
    expect(sample(/^x402_ledger_request_duration_seconds_count\{method="getMultipleAccounts",outcome="ok"\} [1-9]/)).toBeDefined();
    expect(sample(/^x402_store_query_duration_seconds_count\{operation="insert",table="settlements",outcome="ok"\} [1-9]/)).toBeDefined();
    expect(sample(/^x402_store_query_duration_seconds_count\{operation="update",table="settlements",outcome="ok"\} [1-9]/)).toBeDefined();
  });

  test("the settlement records and recovery: open records by state, the oldest one's age, reconciler passes, corrections", () => {
    // The start-up pass ran before the settle; the settle left nothing open.
    expect(sample(/^x402_settlements_unresolved\{state="pending"\} 0$/)).toBeDefined();
    expect(sample(/^x402_settlements_unresolved\{state="submitted"\} 0$/)).toBeDefined();
    expect(sample(/^x402_settlements_oldest_unresolved_age_seconds 0$/)).toBeDefined();
    expect(sample(/^x402_reconciler_passes_total\{outcome="ok"\} [1-9]/)).toBeDefined();
    expect(sample(/^x402_reconciler_passes_total\{outcome="error"\} 0$/)).toBeDefined();
    expect(sample(/^x402_settlement_corrections_total\{from="failed",to="settled"\} 0$/)).toBeDefined();
  });

  test("the registry index's age, health and size, and process metrics from prom-client under Bun", () => {
    const age = Number(sample(/^x402_registry_index_age_seconds /)?.split(" ")[1]);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(30);
    expect(sample(/^x402_registry_index_healthy 1$/)).toBeDefined();
    expect(sample(/^x402_registry_agents 0$/)).toBeDefined();
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes"]) {
      expect(sampleNames(exposition)).toContain(name);
    }
    expect(Number(sample(/^process_resident_memory_bytes /)?.split(" ")[1])).toBeGreaterThan(1_000_000);
  });

  test("the shared counters' failures are exposed at 0 before the first (database backend without REDIS_URL)", () => {
    expect(sample(/^x402_counter_store_errors_total\{op="add",backend="database"\} 0$/)).toBeDefined();
    expect(sample(/^x402_counter_store_errors_total\{op="subtract",backend="database"\} 0$/)).toBeDefined();
  });

  test("both interfaces serve the same registry", async () => {
    const fromRegistry = await (await service.send("registry", "/metrics")).text();
    expect(fromRegistry).toContain('x402_settlements_total{outcome="settled"} 1');
  });
});

describe("deploy/observability: the dashboard and the alert rules query only exposed metrics", () => {
  test("dashboard.json parses, and every metric name its panels query is exposed", () => {
    const dashboard = JSON.parse(readFileSync(resolve(DEPLOY, "dashboard.json"), "utf8")) as { uid: string; panels: { type: string; targets?: { expr: string }[] }[] };
    expect(dashboard.uid).toBe("x402-facilitator");
    const exprs = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    expect(exprs.length).toBeGreaterThan(15);
    const queried = new Set(exprs.flatMap(metricNamesIn));
    const exposed = sampleNames(exposition);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
    // What an operator watches, each on the dashboard.
    for (const name of [
      "x402_settlements_total",
      "x402_settlement_duration_seconds_bucket",
      "x402_settlements_in_flight",
      "x402_fee_payer_balance_lamports",
      "x402_fee_payer_lamports_spent_total",
      "x402_signer_duration_seconds_bucket",
      "x402_signer_duration_seconds_count",
      "x402_ledger_request_duration_seconds_bucket",
      "x402_ledger_request_duration_seconds_count",
      "x402_registry_index_age_seconds",
      "x402_settlements_unresolved",
      "x402_settlements_oldest_unresolved_age_seconds",
      "x402_reconciler_passes_total",
      "x402_settlement_corrections_total",
    ]) {
      expect(queried).toContain(name);
    }
  });

  test("alerts.yaml parses as a PrometheusRule, and every metric name its rules query is exposed", () => {
    const rule = parseYaml(readFileSync(resolve(DEPLOY, "alerts.yaml"), "utf8")) as {
      kind: string;
      spec: { groups: { name: string; rules: { alert: string; expr: string; labels: { severity: string } }[] }[] };
    };
    expect(rule.kind).toBe("PrometheusRule");
    const rules = rule.spec.groups.flatMap((group) => group.rules);
    expect(rules.length).toBeGreaterThan(10);
    for (const r of rules) {
      expect(r.alert).toMatch(/^X402[A-Za-z]+$/);
      expect(["critical", "warning"]).toContain(r.labels.severity);
    }
    const queried = new Set(rules.flatMap((r) => metricNamesIn(r.expr)));
    const exposed = sampleNames(exposition);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
    // The settlement backlog and recovery are alerted on.
    for (const name of ["x402_settlements_unresolved", "x402_settlements_oldest_unresolved_age_seconds", "x402_reconciler_passes_total", "x402_settlement_corrections_total"]) {
      expect(queried).toContain(name);
    }
  });

  test("podmonitor.yaml scrapes /metrics on the admin port both Deployments' pods expose", () => {
    const monitor = parseYaml(readFileSync(resolve(DEPLOY, "podmonitor.yaml"), "utf8")) as {
      kind: string;
      spec: { selector: { matchLabels: Record<string, string>; matchExpressions: { key: string; values: string[] }[] }; podMetricsEndpoints: { port: string; path: string }[] };
    };
    expect(monitor.kind).toBe("PodMonitor");
    const [endpoint] = monitor.spec.podMetricsEndpoints;
    // In production (the image's NODE_ENV) only the admin port (ADMIN_PORT) serves /metrics.
    expect(endpoint).toMatchObject({ port: "admin", path: "/metrics" });
    const apps = monitor.spec.selector.matchExpressions.find((e) => e.key === "app.kubernetes.io/component")?.values ?? [];
    for (const app of ["facilitator", "registry"]) {
      expect(apps).toContain(app);
      const documents = parseAllDocuments(readFileSync(resolve(DEPLOY, `../base/${app}.yaml`), "utf8")).map((d) => d.toJS() as Record<string, unknown>);
      const deployment = documents.find((d) => d["kind"] === "Deployment") as { spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports?: { name: string }[] }[] } } } };
      expect(deployment.spec.template.metadata.labels["app.kubernetes.io/component"]).toBe(app);
      for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(deployment.spec.template.metadata.labels[key]).toBe(value);
      expect(deployment.spec.template.spec.containers.flatMap((c) => c.ports ?? []).map((port) => port.name)).toContain(endpoint?.port ?? "");
    }
  });

  test("the name extraction sees through PromQL (guards against a check that finds nothing)", () => {
    expect(
      metricNamesIn('histogram_quantile(0.95, sum by (le, method) (rate(x402_ledger_request_duration_seconds_bucket{outcome!="ok"}[5m]))) > 2 and on (instance) up_metric offset 5m'),
    ).toEqual(["x402_ledger_request_duration_seconds_bucket", "up_metric"]);
  });
});
