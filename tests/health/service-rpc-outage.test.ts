// The whole composition (buildService, as main.ts runs it) during an RPC outage: the process is
// alive on both interfaces, the facilitator leaves rotation once the outage has lasted three
// readiness probes (it can neither verify nor settle),
// the registry stays in rotation (reads come from its index) and reports itself degraded.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type TestService, startService } from "../settlement/support/service-harness.ts";
import { unusedPort } from "../support/ports.ts";

type Handles = Readonly<{ handle(request: Request): Promise<Response> | Response }>;

async function get(app: Handles, path: string) {
  const response = await app.handle(new Request(`http://pod.test${path}`));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

let service: TestService;

beforeAll(async () => {
  service = await startService({ SOLANA_RPC_URL: `http://127.0.0.1:${await unusedPort()}`, RECONCILE_INTERVAL_SECONDS: "3600" });
}, 30_000);

afterAll(async () => {
  await service?.dispose();
}, 30_000);

describe("an RPC outage through the real composition", () => {
  test("liveness: 200 on both interfaces", async () => {
    expect(await get(service.facilitatorApp, "/health/live")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await get(service.registryApp, "/health/live")).toEqual({ status: 200, body: { status: "ok" } });
  });

  test("facilitator readiness: 503 with the ledger down, from the third failed probe in a row (READINESS_FAILURE_THRESHOLD); the store is still ok", async () => {
    expect((await get(service.facilitatorApp, "/health/ready")).status).toBe(200);
    expect((await get(service.facilitatorApp, "/health/ready")).status).toBe(200);
    const reply = await get(service.facilitatorApp, "/health/ready");
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ status: "down", checks: { ledger: { status: "down" }, store: { status: "ok" } } });
    expect(Object.keys(reply.body["checks"] as object).sort()).toEqual(["ledger", "signer", "store"]);
  });

  test("registry readiness: 200 while its index cannot load (503 on reads), only the index is asked", async () => {
    expect((await get(service.registryApp, "/agents")).status).toBe(503);
    const reply = await get(service.registryApp, "/health/ready");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "degraded", checks: { ledger: { status: "degraded" } } });
    expect(Object.keys(reply.body["checks"] as object)).toEqual(["ledger"]);
  });

  test("GET /health keeps the spec: 503 down on the facilitator, 200 degraded on the registry", async () => {
    const facilitator = await get(service.facilitatorApp, "/health");
    expect(facilitator.status).toBe(503);
    expect(facilitator.body).toMatchObject({ status: "down", checks: { ledger: { status: "down" } } });
    // The index reports its failure once a read has tried to load it.
    expect((await get(service.registryApp, "/agents")).status).toBe(503);
    const registry = await get(service.registryApp, "/health");
    expect(registry.status).toBe(200);
    expect(registry.body).toMatchObject({ status: "degraded", checks: { ledger: { status: "degraded" }, store: { status: "ok" } } });
  });

  test("no check detail leaks the RPC URL", async () => {
    const text = JSON.stringify(await get(service.facilitatorApp, "/health"));
    expect(text).not.toContain("127.0.0.1:");
  });
});
