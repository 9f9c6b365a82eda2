import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import type { EmbeddedLedger } from "../../src/infrastructure/ledger/embedded/embedded-ledger.ts";
import { DEFAULT_AMOUNT, type Payment, fundedPayment, usdcOf } from "../settlement/support/payments.ts";
import { type TestService, postJson, startService } from "../settlement/support/service-harness.ts";

let service: TestService;
let ledger: EmbeddedLedger;
let feePayer: Address;

beforeAll(async () => {
  service = await startService();
  ledger = service.embeddedLedger as EmbeddedLedger;
  feePayer = service.feePayers.addresses[0] as Address;
});

afterAll(async () => {
  await service.dispose();
});

function withPaymentId(payment: Payment, paymentId: string): Record<string, unknown> {
  const body = payment.body as { paymentPayload: Record<string, unknown> };
  return { ...payment.body, paymentPayload: { ...body.paymentPayload, extensions: { paymentId } } };
}

describe("paymentId attacks on /settle (whole service: embedded ledger, real SPL Token, PGlite)", () => {
  test("one transfer cannot be counted as two orders: the settled transaction under a second paymentId is refused", async () => {
    const payment = await fundedPayment(ledger, feePayer);
    const first = await postJson(service.facilitatorApp, "/settle", withPaymentId(payment, "order-1"));
    expect(first.body).toMatchObject({ success: true });

    const second = await postJson(service.facilitatorApp, "/settle", withPaymentId(payment, "order-2"));
    expect(second.body).toMatchObject({ success: false, transaction: "", errorReason: "ALREADY_SETTLED" });
    const unnamed = await postJson(service.facilitatorApp, "/settle", payment.body);
    expect(unnamed.body).toMatchObject({ success: false, errorReason: "ALREADY_SETTLED" });

    // The honest retry still replays, and the merchant was paid once.
    const replay = await postJson(service.facilitatorApp, "/settle", withPaymentId(payment, "order-1"));
    expect(replay.body).toMatchObject({ success: true, transaction: first.body["transaction"], extensions: { replayed: true } });
    expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  });

  test("a paymentId settled for one transaction cannot vouch for another transaction", async () => {
    const victim = await fundedPayment(ledger, feePayer);
    const attacker = await fundedPayment(ledger, feePayer, { amount: 1n });
    expect((await postJson(service.facilitatorApp, "/settle", withPaymentId(victim, "shared-id"))).body).toMatchObject({ success: true });

    const hijack = await postJson(service.facilitatorApp, "/settle", withPaymentId(attacker, "shared-id"));
    expect(hijack.body).toMatchObject({ success: false, transaction: "", errorReason: "ALREADY_SETTLED" });
    expect(String(hijack.body["errorMessage"])).not.toContain(String((await postJson(service.facilitatorApp, "/settle", withPaymentId(victim, "shared-id"))).body["transaction"]));
    expect(await usdcOf(ledger, attacker.actors.payTo.address)).toBe(0n);
  });
});
