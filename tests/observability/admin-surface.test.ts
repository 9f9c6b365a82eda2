// The admin surface: /metrics (the fee payers' balances and spend), /openapi and /docs are
// served on ADMIN_PORT, and with NODE_ENV=production the public ports do not serve them under
// any spelling; one access-log line per request at info. The real composition (buildService)
// through app.handle, then `bun src/main.ts` in production on real sockets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalLedger, serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { newFeePayerKey } from "../../fixtures/payments.ts";
import { type TestDatabase, createTestDatabase, postgresGate } from "../support/postgres.ts";
import { type RunningService, spawnService } from "../walkthrough/support/spawn-service.ts";
import { type ObservedService, startObservedService } from "./support/observed-service.ts";

const OPERATIONS = ["/metrics", "/openapi", "/docs", "/docs/assets/swagger-ui.css"];
/** Other spellings a router might take for the same routes. */
const SPELLINGS = ["/metrics/", "/METRICS", "/%6Detrics", "/openapi/", "/docs/", "//metrics", "/metrics?x=1"];

async function admin(service: ObservedService, path: string, init?: RequestInit): Promise<Response> {
  if (!service.admin) throw new Error("no admin surface");
  return service.admin(new Request(`http://localhost${path}`, init));
}

describe("NODE_ENV=production (real composition, both interfaces)", () => {
  let service: ObservedService;
  beforeAll(async () => {
    service = await startObservedService({ NODE_ENV: "production" });
  }, 30_000);
  afterAll(async () => {
    await service?.dispose();
  });

  test("the public ports answer 404 for /metrics, /openapi, /docs and their assets, under any spelling", async () => {
    for (const app of ["facilitator", "registry"] as const) {
      for (const path of [...OPERATIONS, ...SPELLINGS]) {
        const response = await service.send(app, path);
        expect({ app, path, status: response.status }).toEqual({ app, path, status: 404 });
        expect(await response.text()).not.toContain("x402_");
      }
    }
  });

  test("the public ports still serve the interfaces", async () => {
    expect((await service.send("facilitator", "/supported")).status).toBe(200);
    expect((await service.send("facilitator", "/health/live")).status).toBe(200);
    expect((await service.send("registry", "/agents/categories")).status).toBe(200);
  });

  test("the admin surface serves the one metrics registry, counting the public interfaces' requests", async () => {
    await service.send("facilitator", "/supported");
    const response = await admin(service, "/metrics");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^http_requests_total\{service="facilitator",method="GET",route="\/supported",status="200"\} [1-9]/m);
    expect(text).toContain("x402_registry_index_healthy");
  });

  test("each interface's document and page under its name; the page's assets; both documents whole", async () => {
    const facilitator = (await (await admin(service, "/facilitator/openapi")).json()) as { info: { title: string }; paths: Record<string, unknown> };
    expect(facilitator.info.title).toBe("x402 payment facilitator (Solana)");
    expect(Object.keys(facilitator.paths)).toEqual(expect.arrayContaining(["/verify", "/settle", "/supported", "/metrics", "/openapi", "/docs"]));
    const registry = (await (await admin(service, "/registry/openapi")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(registry.paths)).toEqual(expect.arrayContaining(["/agents", "/auth/challenge", "/metrics"]));
    const page = await admin(service, "/facilitator/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("swagger-ui");
    // Relative: from /facilitator/docs the page loads /facilitator/openapi, from /docs it loads /openapi.
    expect(html).toContain('"url":"openapi"');
    expect((await admin(service, "/docs/assets/swagger-ui-bundle.js")).status).toBe(200);
  });

  test("the admin surface answers nothing else: no interface route, no unprefixed document when two interfaces share it", async () => {
    for (const [method, path] of [["POST", "/facilitator/verify"], ["GET", "/facilitator/supported"], ["GET", "/facilitator/health"], ["GET", "/registry/agents"], ["GET", "/openapi"], ["GET", "/"], ["POST", "/metrics"]] as const) {
      const response = await admin(service, path, { method, ...(method === "POST" ? { body: "{}", headers: { "content-type": "application/json" } } : {}) });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
    }
    const unprefixed = (await (await admin(service, "/openapi")).json()) as { message: string };
    expect(unprefixed.message).toContain("/facilitator/openapi");
  });

  test("one access-log line per request at info: method, route, status, duration_ms, request id", async () => {
    await service.send("facilitator", "/supported", { headers: { "x-request-id": "access-log-1" } });
    await service.send("registry", "/agents/no-such-agent", { headers: { "x-request-id": "access-log-2" } });
    const lines = service.logs().filter((line) => line["msg"] === "request" && String(line["requestId"]).startsWith("access-log-"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: "info", requestId: "access-log-1", service: "facilitator", method: "GET", route: "/supported", status: "200" });
    expect(lines[1]).toMatchObject({ level: "info", requestId: "access-log-2", service: "registry", method: "GET", route: "/agents/:id", status: "404" });
    for (const line of lines) expect(line["duration_ms"]).toBeNumber();
  });
});

describe("outside production (real composition)", () => {
  test("the public ports keep /metrics, /openapi and /docs, and there is no admin port unless ADMIN_PORT is set", async () => {
    const development = await startObservedService();
    try {
      for (const path of OPERATIONS) expect({ path, status: (await development.send("facilitator", path)).status }).toEqual({ path, status: 200 });
      expect(development.admin).toBeNull();
    } finally {
      await development.dispose();
    }
    const withAdmin = await startObservedService({ ADMIN_PORT: "0", ROLE: "registry" });
    try {
      expect((await withAdmin.send("registry", "/metrics")).status).toBe(200);
      // One interface: its document is also unprefixed; the other interface is absent.
      expect((await admin(withAdmin, "/openapi")).status).toBe(200);
      expect((await admin(withAdmin, "/facilitator/openapi")).status).toBe(404);
    } finally {
      await withAdmin.dispose();
    }
  }, 30_000);
});

const gate = await postgresGate("admin surface (bun src/main.ts in production)");

describe.if(gate.run)("bun src/main.ts with NODE_ENV=production, ROLE=facilitator (real sockets, real PostgreSQL, ledger over JSON-RPC)", () => {
  let database: TestDatabase;
  let rpc: { url: string; stop(): Promise<void> };
  let running: RunningService;
  const dataDir = mkdtempSync(join(tmpdir(), "admin-surface-"));

  beforeAll(async () => {
    database = await createTestDatabase();
    rpc = serveLocalLedgerRpc(createLocalLedger(), { host: "127.0.0.1", port: 0 });
    running = await spawnService({
      NODE_ENV: "production",
      ROLE: "facilitator",
      FACILITATOR_PORT: "0",
      ADMIN_PORT: "0",
      DATA_DIR: dataDir,
      SOLANA_RPC_URL: rpc.url,
      DATABASE_URL: database.url,
      FEE_PAYER_SIGNER: "local",
      FEE_PAYER_PRIVATE_KEY: (await newFeePayerKey()).json,
    });
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await rpc?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  test("the ready line names the admin URL; /metrics, /openapi and /docs answer there and 404 on the public port", async () => {
    const { facilitator, admin: adminUrl } = running.urls;
    expect(adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const path of OPERATIONS) {
      expect({ path, status: (await fetch(`${facilitator}${path}`)).status }).toEqual({ path, status: 404 });
      expect({ path, status: (await fetch(`${adminUrl}${path}`)).status }).toEqual({ path, status: 200 });
    }
    expect((await fetch(`${facilitator}/supported`)).status).toBe(200);
    expect(await (await fetch(`${adminUrl}/metrics`)).text()).toContain("x402_signer_healthy");
  });

  test("the access log: one info line per request on stdout", async () => {
    await fetch(`${running.urls["facilitator"]}/supported`, { headers: { "x-request-id": "main-access-log" } });
    await Bun.sleep(100);
    const line = running.logs().split("\n").find((text) => text.includes('"main-access-log"') && text.includes('"msg":"request"'));
    expect(JSON.parse(line ?? "{}")).toMatchObject({ level: "info", method: "GET", route: "/supported", status: "200", requestId: "main-access-log" });
  });
});
