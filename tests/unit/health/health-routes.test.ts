// GET /health/live, /health/ready and /health on both interfaces, through app.handle with probes
// that are up, degraded, down, throwing or hung. Liveness must never depend on a dependency: an
// RPC outage that restarted every pod would turn a degraded service into no service.
import { describe, expect, test } from "bun:test";
import {
  type CheckName,
  FACILITATOR_READINESS,
  type HealthCheck,
  type HealthProbe,
  type HealthProbes,
  PROBE_TIMEOUT_MS,
  REGISTRY_READINESS,
} from "../../../src/application/health.ts";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { createFacilitatorApp } from "../../../src/http/facilitator-app.ts";
import { createRegistryApp } from "../../../src/http/registry-app.ts";
import { createAgentIndex } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { PROGRAM_ID } from "../../registry/support/registry-fixtures.ts";
import { createActors } from "../../../fixtures/payment-builder.ts";
import { verifyDeps, withVerify } from "../../../fixtures/verify-deps.ts";

type Handles = Readonly<{ handle(request: Request): Promise<Response> | Response }>;
type Reply = Readonly<{ status: number; body: Record<string, unknown> }>;

/** A probe that answers `check` and counts its calls, so tests can prove liveness runs none. */
function probe(check: HealthCheck | "throws" | "hangs"): HealthProbe & { calls: number } {
  const fn = Object.assign(
    async (): Promise<HealthCheck> => {
      fn.calls += 1;
      if (check === "throws") throw new Error("connection refused");
      if (check === "hangs") return new Promise<HealthCheck>(() => {});
      return check;
    },
    { calls: 0 },
  );
  return fn;
}

const ok = (): HealthCheck => ({ status: "ok" });
const degraded = (detail = "degraded for the test"): HealthCheck => ({ status: "degraded", detail });
const down = (detail = "down for the test"): HealthCheck => ({ status: "down", detail });

type Probes = Readonly<{ ledger: ReturnType<typeof probe>; store: ReturnType<typeof probe>; signer: ReturnType<typeof probe>; counters?: ReturnType<typeof probe> }>;

/** The three checks every interface has, and `counters` (a store of their own: Redis) only when given. */
function probes(overrides: Partial<Record<CheckName, HealthCheck | "throws" | "hangs">> = {}): Probes {
  const { counters } = overrides;
  return { ledger: probe(overrides.ledger ?? ok()), store: probe(overrides.store ?? ok()), signer: probe(overrides.signer ?? ok()), ...(counters ? { counters: probe(counters) } : {}) };
}

const calls = (p: Probes) => p.ledger.calls + p.store.calls + p.signer.calls + (p.counters?.calls ?? 0);

async function facilitatorApp(health: HealthProbes, apiKeys: { name: string; sha256: string }[] | null = null) {
  const actors = await createActors();
  const deps = verifyDeps(actors);
  return createFacilitatorApp({ ...withVerify(deps), settlement: null, logger: silentLogger, health, version: "9.9.9", apiKeys });
}

function registryApp(health: HealthProbes) {
  const ledger = createFakeLedger(PROGRAM_ID);
  const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
  return createRegistryApp({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES), logger: silentLogger, health, version: "9.9.9" });
}

async function get(app: Handles, path: string): Promise<Reply> {
  const response = await app.handle(new Request(`http://pod.test${path}`));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const interfaces = [
  { name: "facilitator", build: (p: Probes) => facilitatorApp({ ...p, readiness: FACILITATOR_READINESS }) },
  { name: "registry", build: async (p: Probes) => registryApp({ ...p, readiness: REGISTRY_READINESS }) },
] as const;

describe.each(interfaces)("GET /health/live on the $name interface", ({ build }) => {
  test("200 {status: ok} with every dependency up", async () => {
    const p = probes();
    expect(await get(await build(p), "/health/live")).toEqual({ status: 200, body: { status: "ok" } });
    expect(calls(p)).toBe(0);
  });

  test("200 {status: ok} with every dependency down, throwing or hung, and no probe runs", async () => {
    for (const p of [probes({ ledger: down(), store: down(), signer: down() }), probes({ ledger: "throws", store: "throws", signer: "throws" }), probes({ ledger: "hangs", store: "hangs", signer: "hangs" })]) {
      const started = performance.now();
      expect(await get(await build(p), "/health/live")).toEqual({ status: 200, body: { status: "ok" } });
      expect(calls(p)).toBe(0);
      expect(performance.now() - started).toBeLessThan(PROBE_TIMEOUT_MS);
    }
  });
});

describe.each(interfaces)("GET /health on the $name interface keeps the spec's shape and semantics", ({ build }) => {
  test("all up: 200 {status: ok, version, checks: {ledger, store, signer}}", async () => {
    expect(await get(await build(probes()), "/health")).toEqual({
      status: 200,
      body: { status: "ok", version: "9.9.9", checks: { ledger: { status: "ok" }, store: { status: "ok" }, signer: { status: "ok" } } },
    });
  });

  test("a degraded check: 200 degraded, with its detail", async () => {
    const reply = await get(await build(probes({ signer: degraded("no key") })), "/health");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "degraded", checks: { signer: { status: "degraded", detail: "no key" } } });
  });

  test("any check down, whatever the role needs: 503 down (the /health spec is role-blind)", async () => {
    for (const name of ["ledger", "store", "signer"] as const) {
      const reply = await get(await build(probes({ [name]: down() })), "/health");
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ status: "down", version: "9.9.9", checks: { [name]: { status: "down" } } });
      expect(Object.keys(reply.body["checks"] as object).sort()).toEqual(["ledger", "signer", "store"]);
    }
  });

  test("a throwing probe counts as down with its message", async () => {
    const reply = await get(await build(probes({ store: "throws" })), "/health");
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ checks: { store: { status: "down", detail: "connection refused" } } });
  });
});

describe("GET /health/ready on the facilitator interface: ledger, store and signer are all needed", () => {
  test("all up: 200 with the three checks", async () => {
    expect(await get(await facilitatorApp({ ...probes(), readiness: FACILITATOR_READINESS }), "/health/ready")).toEqual({
      status: 200,
      body: { status: "ok", version: "9.9.9", checks: { ledger: { status: "ok" }, store: { status: "ok" }, signer: { status: "ok" } } },
    });
  });

  for (const name of FACILITATOR_READINESS) {
    test(`${name} down: 503, the pod leaves the endpoints`, async () => {
      const reply = await get(await facilitatorApp({ ...probes({ [name]: down() }), readiness: FACILITATOR_READINESS }), "/health/ready");
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ status: "down", checks: { [name]: { status: "down", detail: "down for the test" } } });
    });
  }

  test("the ledger probe throwing (RPC refused) is down: 503", async () => {
    expect((await get(await facilitatorApp({ ...probes({ ledger: "throws" }), readiness: FACILITATOR_READINESS }), "/health/ready")).status).toBe(503);
  });

  test("degraded (no fee-payer key, low balance) stays ready: 200 degraded", async () => {
    const reply = await get(await facilitatorApp({ ...probes({ signer: degraded("no fee-payer key configured") }), readiness: FACILITATOR_READINESS }), "/health/ready");
    expect(reply.status).toBe(200);
    expect(reply.body["status"]).toBe("degraded");
  });

  test("without a readiness list every check is needed (the default)", async () => {
    expect((await get(await facilitatorApp(probes({ signer: down() })), "/health/ready")).status).toBe(503);
  });

  test("open without the API key that guards /verify and /settle", async () => {
    const app = await facilitatorApp({ ...probes(), readiness: FACILITATOR_READINESS }, [{ name: "ops", sha256: "00".repeat(32) }]);
    for (const path of ["/health", "/health/live", "/health/ready"]) expect((await get(app, path)).status).toBe(200);
    const verify = await app.handle(new Request("http://pod.test/verify", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }));
    expect(verify.status).toBe(401);
  });

  test(`a hung dependency answers 503 within the probe deadline (${PROBE_TIMEOUT_MS} ms)`, async () => {
    const started = performance.now();
    const reply = await get(await facilitatorApp({ ...probes({ store: "hangs" }), readiness: FACILITATOR_READINESS }), "/health/ready");
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ checks: { store: { status: "down", detail: `no answer within ${PROBE_TIMEOUT_MS} ms` } } });
    expect(performance.now() - started).toBeLessThan(PROBE_TIMEOUT_MS + 1000);
  });
});

describe("GET /health/ready on the registry interface: only the index is needed", () => {
  test("store and signer down: still ready (reads are served from the index), and they are not probed", async () => {
    const p = probes({ store: down(), signer: down() });
    const reply = await get(registryApp({ ...p, readiness: REGISTRY_READINESS }), "/health/ready");
    expect(reply).toEqual({ status: 200, body: { status: "ok", version: "9.9.9", checks: { ledger: { status: "ok" } } } });
    expect(p.store.calls + p.signer.calls).toBe(0);
  });

  test("the index serving its last good model (degraded) stays ready: 200 degraded", async () => {
    const reply = await get(registryApp({ ...probes({ ledger: degraded("RPC unreachable") }), readiness: REGISTRY_READINESS }), "/health/ready");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "degraded", checks: { ledger: { status: "degraded" } } });
  });

  test("the index probe down or throwing: 503", async () => {
    for (const ledger of [down(), "throws"] as const) {
      expect((await get(registryApp({ ...probes({ ledger }), readiness: REGISTRY_READINESS }), "/health/ready")).status).toBe(503);
    }
  });

  test("the same store outage makes /health 503 but leaves /health/ready 200 (the spec's /health is not the readiness probe)", async () => {
    const app = registryApp({ ...probes({ store: down() }), readiness: REGISTRY_READINESS });
    expect((await get(app, "/health")).status).toBe(503);
    expect((await get(app, "/health/ready")).status).toBe(200);
  });
});

describe("GET /health/ready turns down only after several failed probes in a row (failuresBeforeDown, READINESS_FAILURE_THRESHOLD)", () => {
  test("threshold 3: the first two failed probes answer 200 degraded with the count, the third 503 down", async () => {
    const p = probes({ ledger: down("no answer within 2000 ms") });
    const app = await facilitatorApp({ ...p, readiness: FACILITATOR_READINESS, failuresBeforeDown: 3 });
    const first = await get(app, "/health/ready");
    expect(first).toMatchObject({ status: 200, body: { status: "degraded", checks: { ledger: { status: "degraded", detail: "no answer within 2000 ms (failed 1 time in a row; down after 3)" } } } });
    const second = await get(app, "/health/ready");
    expect(second).toMatchObject({ status: 200, body: { checks: { ledger: { detail: "no answer within 2000 ms (failed 2 times in a row; down after 3)" } } } });
    expect(await get(app, "/health/ready")).toMatchObject({ status: 503, body: { status: "down", checks: { ledger: { status: "down", detail: "no answer within 2000 ms" } } } });
    expect((await get(app, "/health/ready")).status).toBe(503);
    expect(p.ledger.calls).toBe(4);
  });

  test("one probe that works clears the count: a later failure starts again at 1", async () => {
    let check: HealthCheck = down();
    const app = await facilitatorApp({ ...probes(), ledger: async () => check, readiness: FACILITATOR_READINESS, failuresBeforeDown: 2 });
    expect((await get(app, "/health/ready")).status).toBe(200);
    check = ok();
    expect(await get(app, "/health/ready")).toMatchObject({ status: 200, body: { status: "ok" } });
    check = down();
    expect(await get(app, "/health/ready")).toMatchObject({ status: 200, body: { status: "degraded" } });
    expect((await get(app, "/health/ready")).status).toBe(503);
    check = ok();
    expect(await get(app, "/health/ready")).toMatchObject({ status: 200, body: { status: "ok" } });
  });

  test("each check counts its own failures in a row", async () => {
    let store: HealthCheck = ok();
    const app = await facilitatorApp({ ...probes({ ledger: down() }), store: async () => store, readiness: FACILITATOR_READINESS, failuresBeforeDown: 2 });
    expect((await get(app, "/health/ready")).status).toBe(200);
    store = down();
    // The ledger's second failure turns it down; the store's first is only degraded.
    const reply = await get(app, "/health/ready");
    expect(reply).toMatchObject({ status: 503, body: { checks: { ledger: { status: "down" }, store: { status: "degraded" } } } });
  });

  test("probes that arrive together share one round: a second prober cannot reach the threshold faster", async () => {
    const p = probes({ ledger: down() });
    const app = await facilitatorApp({ ...p, readiness: FACILITATOR_READINESS, failuresBeforeDown: 2 });
    const replies = await Promise.all([get(app, "/health/ready"), get(app, "/health/ready"), get(app, "/health/ready")]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(p.ledger.calls).toBe(1);
    expect((await get(app, "/health/ready")).status).toBe(503);
  });

  test("GET /health is not the readiness probe: it reports the failure at once (503)", async () => {
    const app = await facilitatorApp({ ...probes({ ledger: down() }), readiness: FACILITATOR_READINESS, failuresBeforeDown: 3 });
    expect((await get(app, "/health")).status).toBe(503);
    expect((await get(app, "/health/ready")).status).toBe(200);
  });
});

describe("the counters check (Redis as the shared counters' store)", () => {
  test("facilitator: counters down is down like the store; /health lists the check", async () => {
    const app = await facilitatorApp({ ...probes({ counters: down("the shared counters are unavailable (no answer within 500 ms); retry shortly") }), readiness: FACILITATOR_READINESS });
    expect(await get(app, "/health/ready")).toMatchObject({ status: 503, body: { checks: { counters: { status: "down" } } } });
    const health = await get(app, "/health");
    expect(Object.keys(health.body["checks"] as object).sort()).toEqual(["counters", "ledger", "signer", "store"]);
  });

  test("registry: its counters probe reports degraded (the rate-limited routes answer 503, reads go on): ready, and the check is shown", async () => {
    const reply = await get(registryApp({ ...probes({ counters: degraded("the shared counters are unavailable (connection refused); retry shortly") }), readiness: REGISTRY_READINESS }), "/health/ready");
    expect(reply).toMatchObject({ status: 200, body: { status: "degraded", checks: { ledger: { status: "ok" }, counters: { status: "degraded" } } } });
  });

  test("without a counters probe (counters in the database) no counters check is listed", async () => {
    const reply = await get(registryApp({ ...probes(), readiness: REGISTRY_READINESS }), "/health/ready");
    expect(Object.keys(reply.body["checks"] as object)).toEqual(["ledger"]);
  });
});
