import { describe, expect, test } from "bun:test";
import { DEFAULT_AMOUNT, type Payment, fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { useEmbeddedService } from "./support/embedded-service.ts";

const rig = useEmbeddedService();

function withPaymentId(payment: Payment, paymentId: string): Record<string, unknown> {
  const body = payment.body as { paymentPayload: Record<string, unknown> };
  return { ...payment.body, paymentPayload: { ...body.paymentPayload, extensions: { paymentId } } };
}

describe("paymentId attacks on /settle (whole service: embedded ledger, real SPL Token, PGlite)", () => {
  test("one transfer cannot be counted as two orders: the settled transaction under a second paymentId is refused", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const first = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(payment, "order-1"));
    expect(first.body).toMatchObject({ success: true });

    const second = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(payment, "order-2"));
    expect(second.body).toMatchObject({ success: false, transaction: "", errorReason: "ALREADY_SETTLED" });
    const unnamed = await postJson(rig.service.facilitatorApp, "/settle", payment.body);
    expect(unnamed.body).toMatchObject({ success: false, errorReason: "ALREADY_SETTLED" });

    // The honest retry still replays, and the merchant was paid once.
    const replay = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(payment, "order-1"));
    expect(replay.body).toMatchObject({ success: true, transaction: first.body["transaction"], extensions: { replayed: true } });
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  });

  test("a paymentId settled for one transaction cannot vouch for another transaction of the same payer", async () => {
    const first = await fundedPayment(rig.ledger, rig.feePayer);
    expect((await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(first, "shared-id"))).body).toMatchObject({ success: true });
    const second = await fundedPayment(rig.ledger, rig.feePayer, { actors: first.actors, amount: 1n });

    const reuse = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(second, "shared-id"));
    expect(reuse.body).toMatchObject({ success: false, transaction: "", errorReason: "ALREADY_SETTLED" });
    expect(await usdcOf(rig.ledger, first.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  });

  test("a paymentId is the payer's own: a stranger who uses a pending id first cannot block or answer for the payer", async () => {
    const victim = await fundedPayment(rig.ledger, rig.feePayer);
    const squatter = await fundedPayment(rig.ledger, rig.feePayer, { amount: 1n });
    const squat = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(squatter, "victim-order-7"));
    // The squatter paid its own payTo: that is its own payment, answered with its own payer.
    expect(squat.body).toMatchObject({ success: true, payer: squatter.actors.payer.address });

    const real = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(victim, "victim-order-7"));
    expect(real.body).toMatchObject({ success: true, payer: victim.actors.payer.address, extensions: { paymentId: "victim-order-7" } });
    expect(real.body["transaction"]).not.toBe(squat.body["transaction"]);
    expect(await usdcOf(rig.ledger, victim.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  });

  test("a 3,000-character paymentId, or one outside the charset, is 400 PAYMENT_ID_INVALID on /settle and /verify; nothing is signed or stored", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    for (const paymentId of ["x".repeat(3_000), "x".repeat(129), "order 1", "ordre-é", "", 42]) {
      for (const path of ["/settle", "/verify"]) {
        const body = withPaymentId(payment, paymentId as string);
        const reply = await postJson(rig.service.facilitatorApp, path, body);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
        expect(String(reply.body["message"])).toContain("PAYMENT_ID_INVALID");
      }
    }
    expect(await rig.service.store.settlements.get(settlementKeyOfPayment(payment))).toBeNull();
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(0n);
    // The longest allowed id settles.
    const reply = await postJson(rig.service.facilitatorApp, "/settle", withPaymentId(payment, `a:b.c_d-${"9".repeat(120)}`));
    expect(reply.body).toMatchObject({ success: true });
  });
});
