// The whole service (buildService, the real JSON-RPC adapter) in front of the embedded ledger's
// real JSON-RPC handler behind a proxy that stalls (accepts the request, never answers) or refuses
// connections. Before: requests waited the 10 s RPC timeout (Bun's idle timeout too, so /agents
// over a socket got a reset), /verify answered 500 (89 ms refused, 10.26 s stalled), and a 2-second
// stall made every facilitator pod unready at once. Now: LEDGER_RPC_TIMEOUT_MS bounds every call,
// /verify answers isValid false with a reason, /settle answers SETTLEMENT_FAILED with nothing sent,
// and readiness turns down only after READINESS_FAILURE_THRESHOLD failed probes in a row.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { bunHttpListener } from "../../src/infrastructure/http-listener/bun-http-listener.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type LedgerProxy, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { type Payment, fundedPayment, newFeePayerKey, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { type TestService, startService, type TimedReply, timedRequest } from "../settlement/support/service-harness.ts";

const RPC_TIMEOUT_MS = 1_000;
/** What a loaded two-core machine may add to a bound. */
const SLACK_MS = 1_500;


/** Accepts the call and never answers, as a wedged node (or a load balancer in front of one) does. */
const stall = () => new Promise<Response>(() => {});

type Rig = Readonly<{ ledger: LocalLedger; proxy: LedgerProxy; service: TestService; feePayer: Address }>;

async function startRig(env: Readonly<Record<string, string>> = {}): Promise<Rig> {
  const ledger = createLocalLedger();
  const proxy = startLedgerProxy(ledger);
  const [key, authority] = [await newFeePayerKey(), await newFeePayerKey()];
  await ledger.airdrop(key.address, 10_000_000_000n);
  const service = await startService({
    SOLANA_RPC_URL: proxy.url,
    FEE_PAYER_PRIVATE_KEY: key.json,
    CONFIG_AUTHORITY_PRIVATE_KEY: authority.json,
    RECONCILE_INTERVAL_SECONDS: "3600",
    ...env,
  });
  return { ledger, proxy, service, feePayer: key.address as Address };
}

async function stopRig(rig: Rig | undefined): Promise<void> {
  await rig?.proxy.stop();
  await rig?.service.dispose();
}

describe.each([
  { fault: "stalled (the proxy accepts every call and never answers)", apply: (proxy: LedgerProxy) => proxy.setRule(stall), minMs: RPC_TIMEOUT_MS - 50 },
  { fault: "refusing connections (the proxy's port closed)", apply: (proxy: LedgerProxy) => proxy.goDown(), minMs: 0 },
])(`the ledger $fault, LEDGER_RPC_TIMEOUT_MS=${RPC_TIMEOUT_MS}`, ({ apply, minMs }) => {
  let rig: Rig;
  let payment: Payment;
  beforeAll(async () => {
    rig = await startRig({ LEDGER_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) });
    payment = await fundedPayment(rig.ledger, rig.feePayer);
    // The payment verifies while the ledger answers.
    expect((await timedRequest(rig.service.facilitatorApp, "POST", "/verify", payment.body)).body).toMatchObject({ isValid: true });
    await apply(rig.proxy);
  }, 30_000);
  afterAll(() => stopRig(rig), 30_000);

  test("/verify: 200, isValid false, SIMULATION_FAILED saying the ledger is unavailable; never 500, bounded by the RPC timeout", async () => {
    const reply = await timedRequest(rig.service.facilitatorApp, "POST", "/verify", payment.body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ isValid: false, invalidReason: "SIMULATION_FAILED" });
    expect(String(reply.body["invalidMessage"])).toStartWith("the ledger is unavailable (");
    expect(String(reply.body["invalidMessage"])).toEndWith("; the payment could not be checked, retry");
    // SECURITY: the RPC's address (which may carry an API key) is not in the answer.
    expect(String(reply.body["invalidMessage"])).not.toContain(String(rig.proxy.port));
    expect(reply.ms).toBeGreaterThanOrEqual(minMs);
    expect(reply.ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
  });

  test("/settle: 200, success false, SETTLEMENT_FAILED; nothing sent or recorded, the payee not paid", async () => {
    const fresh = await fundedPayment(rig.ledger, rig.feePayer);
    const reply = await timedRequest(rig.service.facilitatorApp, "POST", "/settle", fresh.body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: false, errorReason: "SETTLEMENT_FAILED", transaction: "" });
    expect(String(reply.body["errorMessage"])).toContain("ledger is unavailable");
    expect(reply.ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(0);
    expect(await rig.service.store.settlements.get(settlementKeyOfPayment(fresh))).toBeNull();
    expect(await usdcOf(rig.ledger, fresh.actors.payTo.address)).toBe(0n);
  });

  test("POST /agents/register: 503 in the error shape saying the ledger is unavailable, bounded by the RPC timeout", async () => {
    const owner = await generateKeyPairSigner();
    const reply = await timedRequest(rig.service.registryApp, "POST", "/agents/register", { name: "Weather agent", ownerAddress: owner.address, metadataUri: "https://agents.example.com/weather.json" });
    expect(reply).toMatchObject({ status: 503, body: { statusCode: 503, message: "the ledger is unavailable; registration cannot be built right now", error: "Service Unavailable" } });
    expect(reply.ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
  });

  test("readiness: 200 degraded for two failed probes, 503 at the third (READINESS_FAILURE_THRESHOLD 3); /verify keeps answering in x402's shape meanwhile", async () => {
    const statuses: number[] = [];
    for (let probe = 1; probe <= 3; probe++) {
      const ready = await timedRequest(rig.service.facilitatorApp, "GET", "/health/ready");
      statuses.push(ready.status);
      expect(ready.ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
      expect((ready.body["checks"] as Record<string, Record<string, string>>)["ledger"]?.["status"]).toBe(probe < 3 ? "degraded" : "down");
      const verified = await timedRequest(rig.service.facilitatorApp, "POST", "/verify", payment.body);
      expect(verified).toMatchObject({ status: 200, body: { isValid: false, invalidReason: "SIMULATION_FAILED" } });
    }
    expect(statuses).toEqual([200, 200, 503]);
  });
});

describe("a 2-second ledger stall (what made every pod unready at once)", () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ LEDGER_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) });
  }, 30_000);
  afterAll(() => stopRig(rig), 30_000);

  test("probed back to back through the stall, readiness never leaves 200, and is ok once the ledger answers", async () => {
    rig.proxy.setRule(stall);
    const stallEnds = performance.now() + 2_000;
    setTimeout(() => rig.proxy.setRule(null), 2_000);
    const during: TimedReply[] = [];
    while (performance.now() < stallEnds) during.push(await timedRequest(rig.service.facilitatorApp, "GET", "/health/ready"));
    // At least one probe met the stall; none turned the pod unready.
    expect(during.some((reply) => reply.body["status"] === "degraded")).toBe(true);
    expect(during.map((reply) => reply.status).every((status) => status === 200)).toBe(true);
    expect(await timedRequest(rig.service.facilitatorApp, "GET", "/health/ready")).toMatchObject({ status: 200, body: { status: "ok" } });
  });
});

describe("the default LEDGER_RPC_TIMEOUT_MS over real sockets (Bun.serve, the service's listener)", () => {
  let rig: Rig;
  let server: ReturnType<typeof bunHttpListener.listen> | null = null;
  beforeAll(async () => {
    rig = await startRig();
    expect(rig.service.config.LEDGER_RPC_TIMEOUT_MS).toBe(3_000);
    rig.proxy.setRule(stall);
  }, 30_000);
  afterEach(async () => {
    await server?.stop(true);
    server = null;
  });
  afterAll(() => stopRig(rig), 30_000);

  test("GET /agents while the index cannot load: a 503 in the error shape in about 3 s, not a connection reset at Bun's 10 s idle timeout", async () => {
    server = bunHttpListener.listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: 1 << 20, fetch: (request) => rig.service.registryApp.handle(request) });
    const started = performance.now();
    const response = await fetch(`${server.url}/agents`);
    const ms = performance.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
    expect(ms).toBeGreaterThanOrEqual(2_900);
    // The index's first load was cut by the stall: the request waits for that load's reads, each
    // bounded by LEDGER_RPC_TIMEOUT_MS, and is answered well before Bun's 10 s idle timeout resets it.
    expect(ms).toBeLessThan(2 * 3_000 + SLACK_MS);
  }, 20_000);

  test("POST /verify: isValid false in about 3 s over the socket", async () => {
    server = bunHttpListener.listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: 1 << 20, fetch: (request) => rig.service.facilitatorApp.handle(request) });
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const started = performance.now();
    const response = await fetch(`${server.url}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payment.body) });
    const ms = performance.now() - started;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ isValid: false, invalidReason: "SIMULATION_FAILED" });
    expect(ms).toBeLessThan(3_000 + SLACK_MS);
  }, 20_000);
});
