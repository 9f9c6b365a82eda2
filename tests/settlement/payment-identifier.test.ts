/**
 * Issue 23 §3: the x402 `payment-identifier` extension through the whole service (buildService:
 * the embedded litesvm ledger with real SPL Token, PGlite, app.handle). The payloads carry the
 * extension as the stock helpers of @x402/extensions 2.27.0 build it: the resource server's
 * `declarePaymentIdentifierExtension()`, echoed by the client with `appendPaymentIdentifierToExtensions`.
 */
import { describe, expect, test } from "bun:test";
import {
  PAYMENT_IDENTIFIER,
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
} from "@x402/extensions/payment-identifier";
import { useEmbeddedService } from "../adversarial/support/embedded-service.ts";
import { DEFAULT_AMOUNT, type Payment, fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "./support/service-harness.ts";

const rig = useEmbeddedService();

/** The payment's body with the stock extension: the declaration, and `id` appended when given. */
function withIdentifier(payment: Payment, id?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const extensions: Record<string, unknown> = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(), ...extra };
  if (id !== undefined) appendPaymentIdentifierToExtensions(extensions, id);
  const body = payment.body as { paymentPayload: Record<string, unknown> };
  return { ...payment.body, paymentPayload: { ...body.paymentPayload, extensions } };
}

/** Transactions the service sent to its ledger so far (its ledger-call histogram). */
async function sends(): Promise<number> {
  const metrics = await (await rig.service.facilitatorApp.handle(new Request("http://f.test/metrics"))).text();
  return [...metrics.matchAll(/^x402_ledger_request_duration_seconds_count\{[^}]*method="sendTransaction"[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

const settle = (body: unknown) => postJson(rig.service.facilitatorApp, "/settle", body);
const verify = (body: unknown) => postJson(rig.service.facilitatorApp, "/verify", body);

describe("payment-identifier (x402 extension) on /supported, /verify and /settle (whole service: embedded ledger, real SPL Token, PGlite)", () => {
  test("/supported lists payment-identifier among its extensions", async () => {
    const reply = await (await rig.service.facilitatorApp.handle(new Request("http://f.test/supported"))).json();
    expect(reply.extensions).toContain(PAYMENT_IDENTIFIER);
  });

  test("same identifier and same payload: settled once; the second answer comes from the record, nothing is sent twice", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const id = generatePaymentId();
    const sentBefore = await sends();
    const first = await settle(withIdentifier(payment, id));
    expect(first.body).toMatchObject({ success: true, extensions: { paymentId: id } });
    expect(await sends()).toBe(sentBefore + 1);

    const second = await settle(withIdentifier(payment, id));
    expect(second.body).toMatchObject({ success: true, transaction: first.body["transaction"], extensions: { paymentId: id, replayed: true } });
    expect(await sends()).toBe(sentBefore + 1);
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    const record = await rig.service.store.settlements.get(settlementKeyOfPayment(payment));
    expect(record).toMatchObject({ state: "settled", paymentId: id, attempts: 1 });
    // The identifier is the payer's paymentId: found under it.
    expect(await rig.service.store.settlements.findByPaymentId(payment.actors.payer.address, id)).toMatchObject({ key: record?.key });
  });

  test("same identifier with a different payload (another transaction of the payer) is refused ALREADY_SETTLED naming the id, on /settle and /verify", async () => {
    const first = await fundedPayment(rig.ledger, rig.feePayer);
    const id = generatePaymentId();
    expect((await settle(withIdentifier(first, id))).body).toMatchObject({ success: true });
    const other = await fundedPayment(rig.ledger, rig.feePayer, { actors: first.actors, amount: 1n });
    const sentBefore = await sends();

    const reuse = await settle(withIdentifier(other, id));
    expect(reuse.status).toBe(200);
    expect(reuse.body).toMatchObject({ success: false, transaction: "", errorReason: "ALREADY_SETTLED", errorMessage: `paymentId ${id} was already used for another transaction` });
    const checked = await verify(withIdentifier(other, id));
    expect(checked.body).toMatchObject({ isValid: false, invalidReason: "ALREADY_SETTLED" });
    expect(String(checked.body["invalidMessage"])).toContain(id);
    expect(await sends()).toBe(sentBefore);
    expect(await usdcOf(rig.ledger, first.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    expect(await rig.service.store.settlements.get(settlementKeyOfPayment(other))).toBeNull();
  });

  test("the identifier is scoped to its payer, as paymentId is: another payer's payment under the same id settles", async () => {
    const id = generatePaymentId();
    const mine = await fundedPayment(rig.ledger, rig.feePayer);
    const theirs = await fundedPayment(rig.ledger, rig.feePayer);
    expect((await settle(withIdentifier(mine, id))).body).toMatchObject({ success: true, payer: mine.actors.payer.address });
    expect((await settle(withIdentifier(theirs, id))).body).toMatchObject({ success: true, payer: theirs.actors.payer.address, extensions: { paymentId: id } });
  });

  test("the identifier and paymentId are one key: an id settled as paymentId is refused for another transaction sent with it as identifier", async () => {
    const id = generatePaymentId();
    const first = await fundedPayment(rig.ledger, rig.feePayer);
    const body = first.body as { paymentPayload: Record<string, unknown> };
    expect((await settle({ ...first.body, paymentPayload: { ...body.paymentPayload, extensions: { paymentId: id } } })).body).toMatchObject({ success: true });
    const other = await fundedPayment(rig.ledger, rig.feePayer, { actors: first.actors, amount: 1n });
    expect((await settle(withIdentifier(other, id))).body).toMatchObject({ success: false, errorReason: "ALREADY_SETTLED" });
  });

  test("the declaration echoed without an id settles as a payment without paymentId", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const reply = await settle(withIdentifier(payment));
    expect(reply.body).toMatchObject({ success: true });
    expect((reply.body["extensions"] as Record<string, unknown>)["paymentId"]).toBeUndefined();
  });

  test("an invalid identifier (length, charset, type) or a conflicting paymentId is 400 PAYMENT_ID_INVALID on /verify and /settle: never a 500 or 422, nothing signed or stored", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const invalid: Record<string, unknown>[] = [
      ...["pay_short", "x".repeat(129), "pay.7d5d747be160e280", "pay:7d5d747be160e280", "pay 7d5d747be160e280", "x".repeat(3_000), 42].map((id) => ({
        [PAYMENT_IDENTIFIER]: { info: { required: false, id }, schema: declarePaymentIdentifierExtension().schema },
      })),
      { [PAYMENT_IDENTIFIER]: { info: { required: false, id: generatePaymentId() } }, paymentId: "order-1" },
      { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(true) },
    ];
    const sentBefore = await sends();
    for (const extensions of invalid) {
      for (const path of ["/settle", "/verify"]) {
        const body = payment.body as { paymentPayload: Record<string, unknown> };
        const reply = await postJson(rig.service.facilitatorApp, path, { ...payment.body, paymentPayload: { ...body.paymentPayload, extensions } });
        expect({ path, extensions, status: reply.status }).toEqual({ path, extensions, status: 400 });
        expect(reply.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
        expect(String(reply.body["message"])).toStartWith("PAYMENT_ID_INVALID: paymentPayload.extensions.");
      }
    }
    expect(await sends()).toBe(sentBefore);
    expect(await rig.service.store.settlements.get(settlementKeyOfPayment(payment))).toBeNull();
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(0n);
  });
});
