// The whole service (buildService with REDIS_URL, embedded ledger, PGlite) while its Redis is
// stopped (the test's own redis-server, SIGKILL) or is a black hole (a node:net socket that
// accepts and never answers). Before the fix /settle and /auth/challenge answered 500 with Redis
// stopped while /health/ready stayed 200, and all three routes below hung for more than 40 s with
// the black hole. Now: each answers within 2 s, in its proper shape, never 500; readiness reports
// the counters; every failure is a metric.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { type TestService, startService, type TimedReply, timedRequest } from "../settlement/support/service-harness.ts";
import { fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { type OwnRedis, redisServerGate, startOwnRedis } from "../support/redis-server.ts";
import { type BlackHole, startBlackHole } from "../support/tcp-faults.ts";

/** What the issue asks of every answer during the outage. */
const ANSWER_BOUND_MS = 2_000;


/** 503 in the error shape, saying the counters are unavailable, in time. */
function expectCountersUnavailable(reply: TimedReply): void {
  expect(reply.status).toBe(503);
  expect(reply.body).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
  expect(String(reply.body["message"])).toStartWith("the shared counters are unavailable (");
  expect(String(reply.body["message"])).not.toMatch(/127\.0\.0\.1|redis:\/\//);
  expect(reply.ms).toBeLessThan(ANSWER_BOUND_MS);
}

type Fault = Readonly<{ name: string; start(): Promise<Readonly<{ url: string; breakIt(): Promise<void>; dispose(): Promise<void> }>> }>;

const own = redisServerGate("tests/counters");
failWhenRequired(own, "redis-server must be installed in CI");

const faults: Fault[] = [
  ...(own.run
    ? [
        {
          name: "Redis stopped (the test's own redis-server, SIGKILL)",
          async start() {
            const redis: OwnRedis = await startOwnRedis();
            return { url: redis.url, breakIt: () => redis.stop("SIGKILL"), dispose: () => redis.dispose() };
          },
        },
      ]
    : []),
  {
    name: "Redis black hole (a node:net socket that accepts and never answers)",
    async start() {
      const hole: BlackHole = await startBlackHole();
      return { url: `redis://127.0.0.1:${hole.port}`, breakIt: async () => {}, dispose: () => hole.close() };
    },
  },
];

describe.each(faults)("$name, through the whole service (default REDIS_* timeouts, READINESS_FAILURE_THRESHOLD 3)", (fault) => {
  let service: TestService;
  let dispose = async () => {};
  beforeAll(async () => {
    const redis = await fault.start();
    dispose = redis.dispose;
    service = await startService({ REDIS_URL: redis.url, AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000", REGISTER_RATE_LIMIT_PER_MINUTE: "100000" });
    await redis.breakIt();
  }, 30_000);
  afterAll(async () => {
    await service?.dispose();
    await dispose();
  }, 30_000);

  test("POST /auth/challenge and POST /auth/token: 503 in the error shape within 2 s (the rate limit fails closed)", async () => {
    const wallet = await generateKeyPairSigner();
    expectCountersUnavailable(await timedRequest(service.registryApp, "POST", "/auth/challenge", { address: wallet.address }));
    expectCountersUnavailable(await timedRequest(service.registryApp, "POST", "/auth/token", { address: wallet.address, message: "x", signature: "y" }));
  });

  test("POST /agents/register: 503 in the error shape within 2 s, before anything is fetched or signed", async () => {
    const owner = await generateKeyPairSigner();
    expectCountersUnavailable(await timedRequest(service.registryApp, "POST", "/agents/register", { name: "Weather agent", ownerAddress: owner.address, metadataUri: "https://agents.example.com/weather.json" }));
  });

  test("POST /settle: 200, success false, FEE_BUDGET_UNAVAILABLE within 2 s; nothing signed, sent or recorded", async () => {
    const ledger = service.embeddedLedger;
    const feePayer = service.feePayers.addresses[0] as Address;
    if (!ledger) throw new Error("embedded ledger expected");
    const payment = await fundedPayment(ledger, feePayer);
    const lamportsBefore = (await ledger.getAccount(feePayer))?.lamports;

    const reply = await timedRequest(service.facilitatorApp, "POST", "/settle", payment.body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: false, errorReason: "FEE_BUDGET_UNAVAILABLE", transaction: "" });
    expect(reply.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(0n);
    expect((await ledger.getAccount(feePayer))?.lamports).toBe(lamportsBefore);
    expect(await service.store.settlements.get(settlementKeyOfPayment(payment))).toBeNull();
  });

  test("/verify does not need the counters: 200 isValid true", async () => {
    const ledger = service.embeddedLedger;
    if (!ledger) throw new Error("embedded ledger expected");
    const payment = await fundedPayment(ledger, service.feePayers.addresses[0] as Address);
    const reply = await timedRequest(service.facilitatorApp, "POST", "/verify", payment.body);
    expect(reply).toMatchObject({ status: 200, body: { isValid: true } });
  });

  test("facilitator readiness: degraded for two failed probes, 503 with counters down at the third; the registry stays ready, counters degraded", async () => {
    const first = await timedRequest(service.facilitatorApp, "GET", "/health/ready");
    expect(first).toMatchObject({ status: 200, body: { status: "degraded", checks: { counters: { status: "degraded" } } } });
    expect(String((first.body["checks"] as Record<string, Record<string, string>>)["counters"]?.["detail"])).toContain("in a row; down after 3");
    expect((await timedRequest(service.facilitatorApp, "GET", "/health/ready")).status).toBe(200);
    const third = await timedRequest(service.facilitatorApp, "GET", "/health/ready");
    expect(third).toMatchObject({ status: 503, body: { status: "down", checks: { counters: { status: "down" }, store: { status: "ok" } } } });
    expect(third.ms).toBeLessThan(ANSWER_BOUND_MS);

    const registry = await timedRequest(service.registryApp, "GET", "/health/ready");
    expect(registry).toMatchObject({ status: 200, body: { status: "degraded", checks: { counters: { status: "degraded" } } } });
  });

  test("every failed call is counted in x402_counter_store_errors_total", async () => {
    const exposition = String((await timedRequest(service.facilitatorApp, "GET", "/metrics")).body["text"]);
    const adds = exposition.split("\n").find((line) => line.startsWith('x402_counter_store_errors_total{op="add",backend="redis"}'));
    expect(Number(adds?.split(" ")[1])).toBeGreaterThanOrEqual(1);
    expect(exposition).toMatch(/^x402_counter_store_errors_total\{op="ping",backend="redis"\} [1-9]/m);
  });
});

(own.run ? describe : describe.skip)("Redis back after an outage (own redis-server): the same service answers as before, without a restart", () => {
  test("challenge 200, then 503 while Redis is down, then 200 again; readiness ok again", async () => {
    const redis = await startOwnRedis();
    const service = await startService({ REDIS_URL: redis.url, AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000" });
    try {
      const wallet = await generateKeyPairSigner();
      const challenge = () => timedRequest(service.registryApp, "POST", "/auth/challenge", { address: wallet.address });
      expect((await challenge()).status).toBe(200);
      await redis.stop("SIGTERM");
      expectCountersUnavailable(await challenge());
      await redis.start();
      const deadline = Date.now() + 5_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        status = (await challenge()).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
      expect(await timedRequest(service.facilitatorApp, "GET", "/health/ready")).toMatchObject({ status: 200, body: { checks: { counters: { status: "ok" } } } });
    } finally {
      await service.dispose();
      await redis.dispose();
    }
  }, 30_000);
});
