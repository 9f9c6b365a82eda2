/**
 * Issue 23 §1: `settlement_pending` as the stock packages expect it. The real stack (our
 * facilitator over HTTP, express 5 with the stock @x402/express `paymentMiddleware`, a buyer on
 * @x402/fetch with @x402/svm's exact client), with the facilitator reaching the embedded litesvm
 * ledger (real SPL Token) through a JSON-RPC proxy whose confirmations come later than
 * SETTLE_CONFIRM_DEADLINE_MS: every transaction reads `processed` for 1.5 s after it is first
 * asked about. @x402/core 2.27.0 retries /settle exactly once on a `settlement_pending` failure
 * that carries the broadcast signature.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Signature } from "@solana/kit";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { type Stack, PRICE, WEATHER, newBuyer, readReply, startStack } from "./support/paid-resource-stack.ts";

const DEADLINE_MS = 1_000;
const CONFIRMATION_DELAY_MS = 1_500;

describe("settlement_pending with the stock @x402/express middleware and @x402/fetch (confirmations slower than SETTLE_CONFIRM_DEADLINE_MS)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ SETTLE_CONFIRM_DEADLINE_MS: String(DEADLINE_MS) }, { confirmationDelayMs: CONFIRMATION_DELAY_MS });
  }, 30_000);
  afterAll(() => stack?.stop());

  /** How many /settle answers were `settlement_pending` so far (the facilitator's own counter). */
  async function pendingAnswers(): Promise<number> {
    const metrics = await (await stack.service.facilitatorApp.handle(new Request("http://f.test/metrics"))).text();
    return Number(/x402_settlements_total\{outcome="settlement_pending"\} (\d+)/.exec(metrics)?.[1] ?? "0");
  }

  test("the buyer gets its 200 (the middleware retried once after settlement_pending), the merchant is paid exactly once, and the record ends settled", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const pendingBefore = await pendingAnswers();
    const before = await stack.usdc(stack.merchant);
    const reply = await readReply(await buyer.payFetch(`${stack.resourceUrl}/weather`));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(WEATHER);
    expect(reply.paymentResponse).toMatchObject({ success: true });
    // The first settle ran past the deadline and answered pending; the stock retry got the success.
    expect((await pendingAnswers()) - pendingBefore).toBe(1);
    expect((await stack.usdc(stack.merchant)) - before).toBe(PRICE);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    const transaction = String(reply.paymentResponse?.["transaction"]);
    const rows = await stack.service.store.executor.query("SELECT state, signature FROM settlements WHERE signature = $1", [transaction]);
    expect(rows).toEqual([{ state: "settled", signature: transaction }]);
    expect(stack.ledger.getTransaction(transaction as Signature)?.err ?? null).toBeNull();
  }, 30_000);

  test("through @x402/core's facilitator client: the first answer is settlement_pending with the signature; the same payload again answers from the record, never submitting twice", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const payload = decodePaymentSignatureHeader(await buyer.buildPaymentHeader(`${stack.resourceUrl}/weather`));
    const facilitator = new HTTPFacilitatorClient({ url: stack.facilitatorUrl });
    const before = await stack.usdc(stack.merchant);

    const started = performance.now();
    const first = await facilitator.settle(payload, payload.accepted);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS + 1_000);
    expect(first).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(first.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    const second = await facilitator.settle(payload, payload.accepted);
    expect(second).toMatchObject({ success: true, transaction: first.transaction });
    expect((await stack.usdc(stack.merchant)) - before).toBe(PRICE);
    const rows = await stack.service.store.executor.query("SELECT count(*)::int AS n FROM settlements WHERE signature = $1 AND state = 'settled'", [first.transaction]);
    expect(rows).toEqual([{ n: 1 }]);
  }, 30_000);
});
