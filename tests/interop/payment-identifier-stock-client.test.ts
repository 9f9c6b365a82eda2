/**
 * Issue 23 §3: the x402 `payment-identifier` extension with the stock packages end to end. Our
 * facilitator over HTTP (embedded litesvm ledger, real SPL Token, PGlite); express 5 with the
 * stock @x402/express `paymentMiddleware` whose route declares the extension with
 * `declarePaymentIdentifierExtension()` (@x402/extensions 2.27.0); buyers on @x402/fetch with
 * @x402/svm's exact client, attaching their id with `appendPaymentIdentifierToExtensions` in an
 * `onBeforePaymentCreation` hook, as the extension's own example client does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { PAYMENT_IDENTIFIER, generatePaymentId } from "@x402/extensions/payment-identifier";
import { type Stack, PRICE, WEATHER, newBuyer, readReply, startStack } from "./support/paid-resource-stack.ts";

describe("payment-identifier with the stock @x402/express middleware, @x402/fetch and @x402/extensions", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { paymentIdentifier: true });
  }, 30_000);
  afterAll(() => stack?.stop());

  const recordsOf = (id: string) => stack.service.store.executor.query("SELECT state, payment_id, signature FROM settlements WHERE payment_id = $1", [id]);

  test("the buyer's id travels in the payment, is the record's paymentId, and the merchant is paid once", async () => {
    const id = generatePaymentId();
    const buyer = await newBuyer(stack, 1_000_000n, { paymentIdentifier: id });
    const before = await stack.usdc(stack.merchant);
    const reply = await readReply(await buyer.payFetch(`${stack.resourceUrl}/weather`));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(WEATHER);
    expect(reply.paymentResponse).toMatchObject({ success: true });
    const sent = decodePaymentSignatureHeader(buyer.sentPaymentHeaders[0] ?? "");
    expect(sent.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false, id } });
    expect(await recordsOf(id)).toEqual([{ state: "settled", payment_id: id, signature: reply.paymentResponse?.["transaction"] }]);
    expect((await stack.usdc(stack.merchant)) - before).toBe(PRICE);
  }, 30_000);

  test("the same id on a new payment (another transaction) is refused: the buyer is not served again and pays nothing more", async () => {
    const id = generatePaymentId();
    const buyer = await newBuyer(stack, 1_000_000n, { paymentIdentifier: id });
    expect((await buyer.payFetch(`${stack.resourceUrl}/weather`)).status).toBe(200);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();

    const again = await readReply(await buyer.payFetch(`${stack.resourceUrl}/weather`));
    expect(again.status).toBe(402);
    // The middleware's /verify was refused with the facilitator's reason (the 402's `error`).
    expect(JSON.stringify(again.paymentRequired)).toContain("ALREADY_SETTLED");
    expect(stack.handlerRuns()).toBe(runsBefore);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await recordsOf(id)).toHaveLength(1);
  }, 30_000);

  test("through @x402/core's facilitator client: the same payload settles once and its second settle is the record's replay", async () => {
    const id = generatePaymentId();
    const buyer = await newBuyer(stack, 1_000_000n, { paymentIdentifier: id });
    const payload = decodePaymentSignatureHeader(await buyer.buildPaymentHeader(`${stack.resourceUrl}/weather`));
    expect(payload.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { id } });
    const facilitator = new HTTPFacilitatorClient({ url: stack.facilitatorUrl });
    const before = await stack.usdc(stack.merchant);

    const first = await facilitator.settle(payload, payload.accepted);
    const second = await facilitator.settle(payload, payload.accepted);
    expect(first).toMatchObject({ success: true, extensions: { paymentId: id } });
    expect(second).toMatchObject({ success: true, transaction: first.transaction, extensions: { paymentId: id, replayed: true } });
    expect((await stack.usdc(stack.merchant)) - before).toBe(PRICE);
    expect(await recordsOf(id)).toEqual([{ state: "settled", payment_id: id, signature: first.transaction }]);
  }, 30_000);
});
