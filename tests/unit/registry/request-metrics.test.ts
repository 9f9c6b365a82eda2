// The request counter and the request log line must carry the status the client received.
// Error answers are Responses built by the error layer, which Elysia's `set.status` alone
// does not reflect (a 503 from /agents used to be counted and logged as 500).
import { describe, expect, test } from "bun:test";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { createRegistryApp } from "../../../src/http/registry-app.ts";
import { createPrometheusMetrics } from "../../../src/infrastructure/metrics/prometheus-metrics.ts";
import { createAgentIndex } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { createRecordingLogger } from "../../registry/support/recording-logger.ts";
import { PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

function setup(failing = false) {
  const ledger = createFakeLedger(PROGRAM_ID);
  // The index loads at once: a ledger down "before the first load" must be down before it is built.
  if (failing) ledger.failWith(new LedgerError("unavailable", "connection refused"));
  const logger = createRecordingLogger();
  const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger });
  const ok = async () => ({ status: "ok" as const });
  const app = createRegistryApp({
    index,
    categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES),
    logger,
    health: { ledger: ok, store: ok, signer: ok },
    version: "test",
    metrics: createPrometheusMetrics(),
  });
  const get = async (path: string) => {
    const response = await app.handle(new Request(`http://localhost${path}`));
    await response.arrayBuffer();
    // afterResponse hooks run once the answer is out; let them finish.
    await Bun.sleep(5);
    return response.status;
  };
  const counted = async () =>
    (await (await app.handle(new Request("http://localhost/metrics"))).text()).split("\n").filter((l) => l.startsWith("http_requests_total{"));
  const requestLogs = () => logger.lines.filter((l) => l.message === "request").map((l) => l.fields);
  return { ledger, get, counted, requestLogs };
}

describe("request metrics and logs carry the status actually sent (registry app via app.handle)", () => {
  test("GET /agents answering 503 is counted and logged as 503, not 500", async () => {
    const { get, counted, requestLogs } = setup(true);
    expect(await get("/agents")).toBe(503);
    const lines = await counted();
    expect(lines).toContain('http_requests_total{service="registry",method="GET",route="/agents",status="503"} 1');
    expect(lines.some((l) => l.includes('status="500"'))).toBe(false);
    expect(requestLogs()).toContainEqual(expect.objectContaining({ route: "/agents", status: "503" }));
  });

  test("an unmatched route is counted as 404, a bad query as 400, an unknown agent as 404", async () => {
    const { get, counted, requestLogs } = setup();
    expect(await get("/no-such-route")).toBe(404);
    expect(await get("/agents?limit=0")).toBe(400);
    expect(await get(`/agents/${testAddress(1, 999)}`)).toBe(404);
    expect(await get("/agents")).toBe(200);
    const lines = await counted();
    expect(lines).toContain('http_requests_total{service="registry",method="GET",route="unmatched",status="404"} 1');
    expect(lines).toContain('http_requests_total{service="registry",method="GET",route="/agents",status="400"} 1');
    expect(lines).toContain('http_requests_total{service="registry",method="GET",route="/agents/:id",status="404"} 1');
    expect(lines).toContain('http_requests_total{service="registry",method="GET",route="/agents",status="200"} 1');
    expect(requestLogs().map((f) => f["status"])).toEqual(["404", "400", "404", "200"]);
  });
});
