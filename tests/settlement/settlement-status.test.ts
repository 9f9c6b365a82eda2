import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "@solana/kit";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { reconcileSettlements } from "../../src/application/settlement/reconcile-settlements.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { draft, uniqueId } from "../../fixtures/settlement-drafts.ts";
import { type Payment, fundedPayment } from "../../fixtures/payments.ts";
import { type JsonReply, type TestService, postJson, startService } from "./support/service-harness.ts";

const SIGNATURE_OF_ZEROS = "1111111111111111111111111111111111111111111111111111111111111111";

function withPaymentId(payment: Payment, paymentId: string): Record<string, unknown> {
  const body = payment.body as { paymentPayload: Record<string, unknown> };
  return { ...payment.body, paymentPayload: { ...body.paymentPayload, extensions: { paymentId } } };
}

async function get(service: TestService, path: string, key?: string): Promise<JsonReply> {
  const response = await service.facilitatorApp.handle(
    new Request(`http://facilitator.test${path}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A base58 signature no record holds: a fresh 64-byte value (the claims below use these as their attempt's signature). */
function freshSignature(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(64));
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let value = BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
  let text = "";
  while (value > 0n) {
    text = alphabet[Number(value % 58n)] + text;
    value /= 58n;
  }
  return text;
}

describe("GET /settlements (buildService: embedded ledger, PGlite store, no API keys)", () => {
  let service: TestService;
  let ledger: LocalLedger;
  let feePayer: Address;

  beforeAll(async () => {
    service = await startService();
    if (!service.embeddedLedger) throw new Error("expected the embedded ledger");
    ledger = service.embeddedLedger;
    feePayer = service.feePayers.addresses[0] as Address;
  }, 30_000);
  afterAll(() => service.dispose());

  test("a settled payment reads confirmed, with its terms, slot and transition times; a replay sets `replayed`", async () => {
    const payment = await fundedPayment(ledger, feePayer);
    const paymentId = uniqueId("order-");
    const settled = await postJson(service.facilitatorApp, "/settle", withPaymentId(payment, paymentId));
    expect(settled.body["success"]).toBe(true);
    const transaction = String(settled.body["transaction"]);

    const first = await get(service, `/settlements/${transaction}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      transaction,
      state: "confirmed",
      reason: null,
      network: service.config.NETWORK,
      payer: payment.actors.payer.address,
      payTo: payment.requirements.payTo,
      asset: payment.requirements.asset,
      amount: String(payment.requirements.amount),
      mode: "standard",
      paymentId,
      attempts: 1,
      replayed: false,
      corrected: false,
    });
    expect(first.body["slot"]).toMatch(/^\d+$/);
    const times = first.body["timestamps"] as Record<string, string | null>;
    expect(Date.parse(String(times["received"]))).toBeLessThanOrEqual(Date.parse(String(times["submitted"])));
    expect(Date.parse(String(times["submitted"]))).toBeLessThanOrEqual(Date.parse(String(times["confirmed"])));
    expect(times).toMatchObject({ pending: null, failed: null, corrected: null, replayed: null });

    const replay = await postJson(service.facilitatorApp, "/settle", withPaymentId(payment, paymentId));
    expect(replay.body["extensions"]).toMatchObject({ replayed: true });
    const after = await get(service, `/settlements/${transaction}`);
    expect(after.body["replayed"]).toBe(true);
    expect((after.body["timestamps"] as Record<string, unknown>)["replayed"]).toEqual(expect.any(String));

    const byId = await get(service, `/settlements?paymentId=${paymentId}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ settlements: [after.body] });
  });

  test("an open claim reads received; past the confirmation deadline, pending; then failed with its reason", async () => {
    const store = service.store.settlements;
    const claim = draft({ signature: freshSignature(), network: service.config.NETWORK });
    await store.claim(claim);
    expect((await get(service, `/settlements/${claim.signature}`)).body).toMatchObject({ state: "received", reason: null, slot: null });

    const sentAt = new Date(Date.now() - 1_000);
    expect(await store.markPending(claim.key, claim.signature, sentAt)).toBe(true);
    const pending = await get(service, `/settlements/${claim.signature}`);
    expect(pending.body).toMatchObject({ state: "pending", timestamps: { submitted: sentAt.toISOString() } });
    expect((pending.body["timestamps"] as Record<string, unknown>)["pending"]).toEqual(expect.any(String));

    await store.finish(claim.key, claim.signature, { state: "failed", error: "blockhash expired before the transaction landed" });
    const failed = await get(service, `/settlements/${claim.signature}`);
    expect(failed.body).toMatchObject({ state: "failed", reason: "blockhash expired before the transaction landed", corrected: false });
    expect((failed.body["timestamps"] as Record<string, unknown>)["failed"]).toEqual(expect.any(String));
  });

  test("a record failed by mistake and corrected by the reconciler reads confirmed and corrected, keeping when it failed", async () => {
    // A real landed transaction, recorded a second time under another key as failed: the
    // reconciler's re-check of recent failures asks the ledger, which says it landed.
    const payment = await fundedPayment(ledger, feePayer);
    const settled = await postJson(service.facilitatorApp, "/settle", payment.body);
    const landedSignature = String(settled.body["transaction"]);
    const store = service.store.settlements;
    const wrong = draft({ signature: landedSignature, network: service.config.NETWORK, paymentId: null });
    // The original record is replaced as the latest holder of this signature once the copy is newer.
    await store.claim(wrong);
    await store.finish(wrong.key, wrong.signature, { state: "failed", error: "blockhash expired before the transaction landed" });

    const report = await reconcileSettlements({ ledger: service.ledger, store, logger: silentLogger, network: service.config.NETWORK, recheckFailedSeconds: 600 });
    expect(report.corrected).toBeGreaterThanOrEqual(1);
    const corrected = await store.get(wrong.key);
    expect(corrected?.state).toBe("settled");
    const view = await get(service, `/settlements/${landedSignature}`);
    expect(view.body).toMatchObject({ transaction: landedSignature, state: "confirmed", corrected: true, reason: null });
    const times = view.body["timestamps"] as Record<string, string | null>;
    expect(times["failed"]).toEqual(expect.any(String));
    expect(times["corrected"]).toEqual(times["confirmed"]);
    expect(view.body["slot"]).toMatch(/^\d+$/);
  });

  test("bad input is 400 in the error shape, never 422; unknown is 404", async () => {
    for (const path of ["/settlements/not-base58-0OIl", `/settlements/${"1".repeat(40)}`, "/settlements?paymentId=", `/settlements?paymentId=${"a".repeat(129)}`, "/settlements?paymentId=a%20b", "/settlements"]) {
      const reply = await get(service, path);
      expect({ path, status: reply.status, error: reply.body["error"] }).toEqual({ path, status: 400, error: "Bad Request" });
      expect(reply.body["statusCode"]).toBe(400);
    }
    // Right alphabet and length but not 64 bytes when decoded.
    expect((await get(service, `/settlements/${"z".repeat(88)}`)).status).toBe(400);
    const unknown = await get(service, `/settlements/${freshSignature()}`);
    expect(unknown).toEqual({ status: 404, body: { statusCode: 404, message: "settlement not found", error: "Not Found" } });
    expect((await get(service, `/settlements/${SIGNATURE_OF_ZEROS}`)).status).toBe(404);
    expect((await get(service, `/settlements?paymentId=${uniqueId("none-")}`)).status).toBe(404);
  });
});

describe("GET /settlements with API keys: a key sees only what it submitted", () => {
  let service: TestService;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "status-keys-"));
    const hash = (key: string) => new Bun.CryptoHasher("sha256").update(key).digest("hex");
    writeFileSync(join(dir, "keys.json"), JSON.stringify([{ name: "shop-a", sha256: hash("key-a") }, { name: "shop-b", sha256: hash("key-b") }]));
    service = await startService({ FACILITATOR_API_KEYS_FILE: join(dir, "keys.json") });
  }, 30_000);
  afterAll(async () => {
    await service.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the submitting key reads the record; another key, and no key, get the 404 an unknown record gets", async () => {
    const payment = await fundedPayment(service.embeddedLedger as LocalLedger, service.feePayers.addresses[0] as Address);
    const paymentId = uniqueId("keyed-");
    const response = await service.facilitatorApp.handle(
      new Request("http://facilitator.test/settle", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer key-a" },
        body: JSON.stringify(withPaymentId(payment, paymentId)),
      }),
    );
    const settled = (await response.json()) as Record<string, unknown>;
    expect(settled["success"]).toBe(true);
    const transaction = String(settled["transaction"]);

    expect((await get(service, `/settlements/${transaction}`, "key-a")).body).toMatchObject({ state: "confirmed", transaction });
    expect((await get(service, `/settlements?paymentId=${paymentId}`, "key-a")).status).toBe(200);
    const hidden = await get(service, `/settlements/${transaction}`, "key-b");
    expect(hidden).toEqual({ status: 404, body: { statusCode: 404, message: "settlement not found", error: "Not Found" } });
    expect((await get(service, `/settlements?paymentId=${paymentId}`, "key-b")).status).toBe(404);

    // SECURITY: another key's newer records under the same paymentId (other payers) cannot push
    // this key's record out of its own answer: the key filter runs before the 20-record limit.
    for (let i = 0; i < 25; i++) {
      await service.store.settlements.claim(draft({ paymentId, payer: `OtherPayer${i}`, network: service.config.NETWORK, apiKey: "shop-b" }));
    }
    const own = await get(service, `/settlements?paymentId=${paymentId}`, "key-a");
    expect(own.status).toBe(200);
    expect((own.body["settlements"] as Array<Record<string, unknown>>).map((record) => record["transaction"])).toEqual([transaction]);
    expect((await get(service, `/settlements?paymentId=${paymentId}`, "key-b")).body["settlements"]).toHaveLength(20);
    expect((await get(service, `/settlements/${transaction}`)).status).toBe(401);
    expect((await get(service, `/settlements/${transaction}`, "wrong")).status).toBe(401);
  });
});
