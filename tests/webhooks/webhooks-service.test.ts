// Signed settlement webhooks through the real service (buildService: embedded ledger with real SPL
// Token, PGlite, the delivery worker) to real HTTP receivers that verify with `standardwebhooks`.
// The "receiver down for two minutes" case is time-scaled: WEBHOOK_RETRY_BASE_MS=50 makes the
// same sequence of failed attempts and backoffs happen in well under a second.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "@solana/kit";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { parseWebhooks } from "../../src/infrastructure/webhooks/webhooks-file.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { reconcileSettlements } from "../../src/application/settlement/reconcile-settlements.ts";
import { unusedPort } from "../support/ports.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { fundedPayment } from "../../fixtures/payments.ts";
import { type TestService, postJson, startService } from "../settlement/support/service-harness.ts";
import { type Receiver, createReceiver, eventually, newSecret } from "./support/receiver.ts";

const ALL_EVENTS = ["settlement.confirmed", "settlement.failed", "settlement.pending", "settlement.corrected"];

describe("webhooks end to end (PGlite, one replica)", () => {
  let service: TestService;
  let dir: string;
  let good: Receiver;
  let flaky: Receiver;
  let hanging: Receiver;
  let late: Receiver;
  let lateWebhookId: string;
  const transactions: string[] = [];
  let draftSignature = "";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "webhooks-"));
    const secrets = [newSecret(), newSecret(), newSecret(), newSecret()] as const;
    const ports = await Promise.all([unusedPort(), unusedPort(), unusedPort(), unusedPort()]);
    good = createReceiver(secrets[0], ports[0]);
    flaky = createReceiver(secrets[1], ports[1], ({ attempt }) => (attempt <= 2 ? 500 : 204));
    hanging = createReceiver(secrets[2], ports[2], () => "hang");
    late = createReceiver(secrets[3], ports[3]);
    const file = JSON.stringify([good, flaky, hanging, late].map((receiver, index) => ({ url: receiver.url, secret: secrets[index], events: ALL_EVENTS })));
    writeFileSync(join(dir, "webhooks.json"), file);
    const parsed = parseWebhooks(file, { production: false }, null);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    lateWebhookId = parsed.webhooks[3]?.id ?? "";
    good.start();
    flaky.start();
    hanging.start();
    // `late` stays down: its port refuses connections until the test starts it.
    service = await startService({
      WEBHOOKS_FILE: join(dir, "webhooks.json"),
      WEBHOOK_RETRY_BASE_MS: "50",
      WEBHOOK_POLL_INTERVAL_MS: "20",
      WEBHOOK_TIMEOUT_MS: "2000",
    });
  }, 30_000);

  afterAll(async () => {
    await service.dispose();
    await Promise.all([good, flaky, hanging, late].map((receiver) => receiver.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  test("three settled payments and a pending-then-failed record: the healthy receiver gets each event once, verified, in order per settlement", async () => {
    const ledger = service.embeddedLedger as LocalLedger;
    const feePayer = service.feePayers.addresses[0] as Address;
    for (let i = 0; i < 3; i += 1) {
      const reply = await postJson(service.facilitatorApp, "/settle", (await fundedPayment(ledger, feePayer)).body);
      expect(reply.body["success"]).toBe(true);
      transactions.push(String(reply.body["transaction"]));
    }
    const store = service.store.settlements;
    const open = draft({ network: service.config.NETWORK });
    draftSignature = open.signature;
    await store.claim(open);
    expect(await store.markPending(open.key, open.signature, new Date())).toBe(true);
    expect(await store.finish(open.key, open.signature, { state: "failed", error: "blockhash expired before the transaction landed" })).toBe(true);

    await eventually(() => good.accepted().length >= 5, 20_000, "five deliveries to the healthy receiver");
    const got = good.accepted();
    expect(got.every((r) => r.verified)).toBe(true);
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    expect(got.filter((r) => r.type === "settlement.confirmed").map((r) => (r.body["data"] as Record<string, unknown>)["transaction"]).sort()).toEqual([...transactions].sort());
    const forDraft = got.filter((r) => (r.body["data"] as Record<string, unknown>)["transaction"] === draftSignature).map((r) => r.type);
    expect(forDraft).toEqual(["settlement.pending", "settlement.failed"]);

    // `data` is the status lookup's view of the record as the event left it.
    const confirmed = got.find((r) => r.type === "settlement.confirmed") as (typeof got)[number];
    const transaction = String((confirmed.body["data"] as Record<string, unknown>)["transaction"]);
    const view = await service.facilitatorApp.handle(new Request(`http://facilitator.test/settlements/${transaction}`));
    expect(confirmed.body["data"]).toEqual(await view.json());
    expect(confirmed.body["timestamp"]).toEqual(expect.any(String));
  });

  test("a receiver answering 500 is retried under the same webhook-id until it accepts; a hanging one is retried and blocks nobody", async () => {
    await eventually(() => flaky.accepted().length >= 5, 20_000, "five accepted deliveries to the flaky receiver");
    const ids = new Set(flaky.accepted().map((r) => r.id));
    expect(ids.size).toBe(5);
    for (const id of ids) {
      const attempts = flaky.requests.filter((r) => r.id === id);
      expect(attempts.map((r) => r.verified)).toEqual([true, true, true]);
      // Each retry carries the same id and the same body (only webhook-timestamp and the signature change).
      expect(new Set(attempts.map((r) => JSON.stringify(r.body))).size).toBe(1);
    }
    // The hanging receiver was asked (and timed out) while the others got everything.
    await eventually(() => hanging.requests.length >= 2, 20_000, "a retry to the hanging receiver");
    expect(hanging.accepted()).toEqual([]);
    expect(good.accepted().length).toBe(5);
  });

  test("a receiver down through several retries, then up, gets every event exactly once per webhook-id", async () => {
    const outbox = service.store.executor;
    const attemptsWhileDown = async () =>
      (await outbox.query("SELECT attempts FROM webhook_outbox WHERE webhook = $1", [lateWebhookId])).map((row) => Number(row["attempts"]));
    // The settlement with two events has its second held back until the first is delivered (order
    // per settlement), so four events are being retried: each at least three times before it comes up.
    await eventually(async () => {
      const attempts = await attemptsWhileDown();
      const tried = attempts.filter((n) => n > 0);
      return attempts.length === 5 && tried.length === 4 && tried.every((n) => n >= 3);
    }, 20_000, "three failed attempts per event while the receiver is down");
    expect(late.requests).toEqual([]);

    late.start();
    await eventually(() => late.accepted().length >= 5, 30_000, "every event after the receiver came back");
    // Enough polls for any duplicate to show up.
    await Bun.sleep(300);
    const ids = late.requests.map((r) => r.id);
    expect(new Set(ids).size).toBe(5);
    expect(ids.length).toBe(5);
    expect(late.requests.every((r) => r.verified)).toBe(true);
    const undelivered = await outbox.query("SELECT count(*)::integer AS n FROM webhook_outbox WHERE webhook = $1 AND delivered_at IS NULL", [lateWebhookId]);
    expect(Number(undelivered[0]?.["n"])).toBe(0);
  });

  test("the metrics count deliveries by event and outcome", async () => {
    const text = await (await service.facilitatorApp.handle(new Request("http://facilitator.test/metrics"))).text();
    expect(text).toMatch(/x402_webhook_deliveries_total\{event="settlement.confirmed",outcome="delivered"\} \d+/);
    expect(text).toMatch(/x402_webhook_deliveries_total\{event="settlement.confirmed",outcome="retry"\} \d+/);
    expect(text).toContain("x402_webhook_queue_depth");
    expect(text).toContain("x402_webhook_oldest_undelivered_age_seconds");
  });

  test("the reconciler's correction of a failed record sends settlement.corrected after its settlement.failed", async () => {
    // A real landed transaction recorded a second time, under another key, as failed: the
    // reconciler's re-check asks the ledger, which says it landed, and corrects the record.
    const ledger = service.embeddedLedger as LocalLedger;
    const reply = await postJson(service.facilitatorApp, "/settle", (await fundedPayment(ledger, service.feePayers.addresses[0] as Address)).body);
    const landed = String(reply.body["transaction"]);
    const store = service.store.settlements;
    const copy = draft({ signature: landed, network: service.config.NETWORK, paymentId: null });
    await store.claim(copy);
    await store.finish(copy.key, copy.signature, { state: "failed", error: "blockhash expired before the transaction landed" });
    const report = await reconcileSettlements({ ledger: service.ledger, store, logger: silentLogger, network: service.config.NETWORK, recheckFailedSeconds: 600 });
    expect(report.corrected).toBe(1);

    const forCopy = () => good.accepted().filter((r) => (r.body["data"] as Record<string, unknown>)["payTo"] === copy.payTo && (r.body["data"] as Record<string, unknown>)["transaction"] === landed);
    await eventually(() => forCopy().length >= 2, 20_000, "the failed and corrected events of the copy");
    expect(forCopy().map((r) => r.type)).toEqual(["settlement.failed", "settlement.corrected"]);
    expect(forCopy()[1]?.body["data"]).toMatchObject({ state: "confirmed", corrected: true });
    expect(forCopy().every((r) => r.verified)).toBe(true);
  });
});
