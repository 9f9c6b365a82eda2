// What clients and readiness get while PostgreSQL cannot be reached: the whole service
// (buildService, no REDIS_URL, so the rate limits and fee budget count in the database too) on
// real PostgreSQL reached through a TCP proxy the test cuts (open connections reset, new ones
// refused), as during a database restart or failover. The burst-level proof that nothing is lost
// or paid twice through a restart is tests/settlement/store-outage-postgres.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { type TestService, startService, type TimedReply, timedRequest } from "../settlement/support/service-harness.ts";
import { fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { ADMIN_URL, type TestDatabase, createTestDatabase, postgresGate } from "../support/postgres.ts";
import { type TcpProxy, startTcpProxy } from "../support/tcp-faults.ts";

const BOUND_MS = 2_000;


const gate = await postgresGate("tests/store");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

(gate.run ? describe : describe.skip)("PostgreSQL unreachable (real server behind a TCP proxy that is cut), embedded ledger", () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let service: TestService;
  beforeAll(async () => {
    database = await createTestDatabase();
    const admin = new URL(ADMIN_URL);
    proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    service = await startService({ DATABASE_URL: url.toString(), AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000" });
    await proxy.cut();
  }, 30_000);
  afterAll(async () => {
    await service?.dispose();
    await proxy?.close();
    await database?.drop();
  }, 30_000);

  test("/verify: 503 in the error shape (whether the payment was already settled cannot be known), naming no host or database", async () => {
    const ledger = service.embeddedLedger;
    if (!ledger) throw new Error("embedded ledger expected");
    const payment = await fundedPayment(ledger, service.feePayers.addresses[0] as Address);
    const reply = await timedRequest(service.facilitatorApp, "POST", "/verify", payment.body);
    expect(reply).toMatchObject({ status: 503, body: { statusCode: 503, message: "the settlement store is unavailable; retry shortly", error: "Service Unavailable" } });
    expect(reply.ms).toBeLessThan(BOUND_MS);
  });

  test("/settle: 200, success false, SETTLEMENT_FAILED, nothing signed or sent", async () => {
    const ledger = service.embeddedLedger;
    if (!ledger) throw new Error("embedded ledger expected");
    const payment = await fundedPayment(ledger, service.feePayers.addresses[0] as Address);
    const reply = await timedRequest(service.facilitatorApp, "POST", "/settle", payment.body);
    expect(reply).toMatchObject({ status: 200, body: { success: false, errorReason: "SETTLEMENT_FAILED", transaction: "" } });
    expect(String(reply.body["errorMessage"])).toContain("nothing was signed or submitted");
    expect(reply.ms).toBeLessThan(BOUND_MS);
    expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(0n);
  });

  test("GET /settlements by transaction and by paymentId: 503 in the error shape, never a 500", async () => {
    const signature = "5".repeat(88);
    for (const path of [`/settlements/${signature}`, "/settlements?paymentId=order-during-outage"]) {
      const reply = await timedRequest(service.facilitatorApp, "GET", path);
      expect({ path, reply }).toMatchObject({ path, reply: { status: 503, body: { statusCode: 503, message: "the settlement store is unavailable; retry shortly", error: "Service Unavailable" } } });
    }
  });

  test("POST /auth/challenge: its rate limit counts in the database and fails closed, 503 in the error shape", async () => {
    const wallet = await generateKeyPairSigner();
    const reply = await timedRequest(service.registryApp, "POST", "/auth/challenge", { address: wallet.address });
    expect(reply).toMatchObject({ status: 503, body: { statusCode: 503, error: "Service Unavailable" } });
    expect(String(reply.body["message"])).toBe("the shared counters are unavailable (the database cannot be reached); retry shortly");
    expect(reply.ms).toBeLessThan(BOUND_MS);
  });

  test("readiness: the facilitator turns down at the third failed probe; the registry stays ready (reads come from its index)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await timedRequest(service.facilitatorApp, "GET", "/health/ready")).status);
    expect(statuses).toEqual([200, 200, 503]);
    expect((await timedRequest(service.registryApp, "GET", "/health/ready")).status).toBe(200);
    expect((await timedRequest(service.registryApp, "GET", "/agents")).status).toBe(200);
  });

  test("back: the same service verifies and settles again without a restart", async () => {
    await proxy.restore();
    const ledger = service.embeddedLedger;
    if (!ledger) throw new Error("embedded ledger expected");
    const payment = await fundedPayment(ledger, service.feePayers.addresses[0] as Address);
    const deadline = Date.now() + 10_000;
    let reply = await timedRequest(service.facilitatorApp, "POST", "/settle", payment.body);
    while (reply.body["success"] !== true && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      reply = await timedRequest(service.facilitatorApp, "POST", "/settle", payment.body);
    }
    expect(reply.body["success"]).toBe(true);
    expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(payment.requirements.amount);
    expect((await service.store.settlements.get(settlementKeyOfPayment(payment)))?.state).toBe("settled");
  }, 20_000);
});
