import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { type Reply, type Stack, PRICE, WEATHER, delivered, newBuyer, readReply, resend, startStack } from "./support/paid-resource-stack.ts";

/**
 * What one buyer's payment header buys when it is sent again, through the REAL official
 * packages: a resource server on express 5 with the stock `paymentMiddleware` of
 * @x402/express 2.27.0 (x402ResourceServer + @x402/core's HTTPFacilitatorClient), a buyer on
 * @x402/fetch 2.27.0 with @x402/svm's exact client, and our facilitator served over HTTP on the
 * embedded litesvm ledger (real SPL Token) and PGlite. Nothing is mocked.
 *
 * How the stock middleware behaves (read from @x402/core 2.27.0's x402HTTPResourceServer and
 * @x402/express): it calls /verify before the route handler, runs the handler with the response
 * buffered, then calls /settle. A failed /verify answers 402 with the reason in the
 * PAYMENT-REQUIRED header's `error` and the handler never runs. A settle answering
 * `success: false` answers 402 with an empty body and the settle result in PAYMENT-RESPONSE:
 * the buffered content is discarded, but the handler HAS run. A settle answering
 * `success: true` is delivered whatever its `extensions` say: `replayed` is ignored.
 *
 * v1: not covered. @x402/express 2.27.0 cannot serve x402Version 1 requirements: its
 * x402ResourceServer builds requirements and 402 challenges with x402Version 2 only (from the
 * facilitator's v2 kind), and it reads the payment only from PAYMENT-SIGNATURE (never the v1
 * X-PAYMENT header), so a v1 buyer has nothing to pay and no way to send it.
 */

const PARALLEL = 5;

/** Holds every handler run until all `count` duplicates reached the handler (at most 2 s). */
async function inParallel(stack: Stack, url: string, header: string, count = PARALLEL): Promise<Reply[]> {
  const before = stack.handlerRuns();
  stack.holdHandlers(stack.handlerRunsReach(before + count, 2_000));
  try {
    return await Promise.all(Array.from({ length: count }, () => resend(url, header)));
  } finally {
    stack.holdHandlers(null);
  }
}

/** One official-client payment settled twice through @x402/core's HTTPFacilitatorClient, as the middleware calls it. */
async function settleTwice(stack: Stack, url: string) {
  const buyer = await newBuyer(stack, 1_000_000n);
  const payload = decodePaymentSignatureHeader(await buyer.buildPaymentHeader(url));
  const requirements = payload.accepted;
  const facilitator = new HTTPFacilitatorClient({ url: stack.facilitatorUrl });
  const first = await facilitator.settle(payload, requirements);
  const second = await facilitator.settle(payload, requirements);
  const verifyAfter = await facilitator.verify(payload, requirements);
  return { buyer, first, second, verifyAfter };
}

describe("stock @x402/express middleware + @x402/fetch buyer against our facilitator (real packages, embedded litesvm ledger), SETTLE_DUPLICATES=replay (default)", () => {
  let stack: Stack;
  let url: string;
  beforeAll(async () => {
    stack = await startStack();
    url = `${stack.resourceUrl}/weather`;
  });
  afterAll(() => stack?.stop());

  test("(real @x402/express + @x402/fetch, embedded litesvm ledger) a paid request is served once and moves the price once", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();

    const reply = await readReply(await buyer.payFetch(url));

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(WEATHER);
    expect(reply.paymentResponse).toMatchObject({ success: true, payer: buyer.address, network: SOLANA_DEVNET });
    expect(String(reply.paymentResponse?.["transaction"])).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(buyer.sentPaymentHeaders).toHaveLength(1);
    expect(stack.handlerRuns() - runsBefore).toBe(1);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test("(real @x402/express, plain fetch resend) the captured header sent again after settlement is NOT served: /verify answers ALREADY_SETTLED, the middleware answers 402 and never runs the handler", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const first = await readReply(await buyer.payFetch(url));
    expect(delivered(first)).toBe(true);
    const [header] = buyer.sentPaymentHeaders;
    const runsAfterFirst = stack.handlerRuns();

    const again = await resend(url, header ?? "");
    const third = await resend(url, header ?? "");

    for (const reply of [again, third]) {
      expect(reply.status).toBe(402);
      expect(reply.body).toEqual({});
      expect(reply.paymentRequired?.["error"]).toBe("ALREADY_SETTLED");
      expect(reply.paymentResponse).toBeNull();
    }
    expect(stack.handlerRuns()).toBe(runsAfterFirst);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test(`(real @x402/express, plain fetch) THE PROBLEM: one header sent ${PARALLEL}x in parallel is served ${PARALLEL}x for one payment: every settle answers success (the duplicates with extensions.replayed: true) and the stock middleware ignores replayed`, async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const header = await buyer.buildPaymentHeader(url);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();

    const replies = await inParallel(stack, url, header);

    expect(replies.filter(delivered)).toHaveLength(PARALLEL);
    expect(stack.handlerRuns() - runsBefore).toBe(PARALLEL);
    const transactions = new Set(replies.map((r) => r.paymentResponse?.["transaction"]));
    expect(transactions.size).toBe(1);
    const replayed = replies.filter((r) => (r.paymentResponse?.["extensions"] as Record<string, unknown> | undefined)?.["replayed"] === true);
    expect(replayed).toHaveLength(PARALLEL - 1);
    // One payment on the ledger.
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test("(real @x402/core HTTPFacilitatorClient) what the middleware gets from a second /settle: success: true, the same transaction, extensions.replayed: true", async () => {
    const { buyer, first, second, verifyAfter } = await settleTwice(stack, url);
    expect(first).toMatchObject({ success: true, payer: buyer.address, network: SOLANA_DEVNET });
    expect(second).toMatchObject({ success: true, transaction: first.transaction, network: SOLANA_DEVNET, extensions: { replayed: true } });
    expect(verifyAfter).toMatchObject({ isValid: false, invalidReason: "ALREADY_SETTLED" });
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
  });

  test("(real @x402/fetch + @x402/svm, embedded litesvm ledger) an underfunded buyer is not served and nothing moves", async () => {
    const buyer = await newBuyer(stack, PRICE - 1n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();

    const reply = await readReply(await buyer.payFetch(url));

    expect(reply.status).toBe(402);
    expect(reply.body).toEqual({});
    expect(reply.paymentRequired?.["error"]).toBe("INSUFFICIENT_FUNDS");
    expect(buyer.sentPaymentHeaders).toHaveLength(1);
    expect(stack.handlerRuns()).toBe(runsBefore);
    expect(await stack.usdc(buyer.address)).toBe(PRICE - 1n);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore);
  });
});

describe("stock @x402/express middleware + @x402/fetch buyer against our facilitator (real packages, embedded litesvm ledger), SETTLE_DUPLICATES=reject", () => {
  let stack: Stack;
  let url: string;
  beforeAll(async () => {
    stack = await startStack({ SETTLE_DUPLICATES: "reject" });
    url = `${stack.resourceUrl}/weather`;
  });
  afterAll(() => stack?.stop());

  test("(real @x402/express + @x402/fetch, embedded litesvm ledger) the first paid request is still served and moves the price once", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const merchantBefore = await stack.usdc(stack.merchant);

    const reply = await readReply(await buyer.payFetch(url));

    expect(delivered(reply)).toBe(true);
    expect(reply.paymentResponse).toMatchObject({ success: true, payer: buyer.address, network: SOLANA_DEVNET });
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test("(real @x402/express, plain fetch resend) the header sent again after settlement is not served (402, ALREADY_SETTLED from /verify)", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const first = await readReply(await buyer.payFetch(url));
    expect(delivered(first)).toBe(true);
    const runsAfterFirst = stack.handlerRuns();

    const again = await resend(url, buyer.sentPaymentHeaders[0] ?? "");

    expect(again.status).toBe(402);
    expect(again.paymentRequired?.["error"]).toBe("ALREADY_SETTLED");
    expect(stack.handlerRuns()).toBe(runsAfterFirst);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test(`(real @x402/express, plain fetch) one header sent ${PARALLEL}x in parallel is served once: the other settles answer DUPLICATE_SETTLEMENT and the stock middleware answers 402 (the handler still ran for each)`, async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const header = await buyer.buildPaymentHeader(url);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();

    const replies = await inParallel(stack, url, header);

    const served = replies.filter(delivered);
    expect(served).toHaveLength(1);
    const original = served[0]?.paymentResponse?.["transaction"];
    expect(served[0]?.paymentResponse).toMatchObject({ success: true, payer: buyer.address });
    for (const refused of replies.filter((r) => !delivered(r))) {
      expect(refused.status).toBe(402);
      expect(refused.body).toEqual({});
      expect(refused.paymentResponse).toMatchObject({
        success: false,
        errorReason: "DUPLICATE_SETTLEMENT",
        transaction: "",
        network: SOLANA_DEVNET,
        extensions: { originalTransaction: original },
      });
    }
    // The stock middleware verifies, runs the handler, then settles: a refused settle withholds
    // the buffered content, but the handler's work was done for every duplicate.
    expect(stack.handlerRuns() - runsBefore).toBe(PARALLEL);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test("(real @x402/core HTTPFacilitatorClient) a second /settle parses as success: false, DUPLICATE_SETTLEMENT, transaction \"\", extensions.originalTransaction", async () => {
    const { buyer, first, second, verifyAfter } = await settleTwice(stack, url);
    expect(first).toMatchObject({ success: true, payer: buyer.address, network: SOLANA_DEVNET });
    expect(second).toMatchObject({
      success: false,
      errorReason: "DUPLICATE_SETTLEMENT",
      transaction: "",
      network: SOLANA_DEVNET,
      extensions: { originalTransaction: first.transaction },
    });
    expect(verifyAfter).toMatchObject({ isValid: false, invalidReason: "ALREADY_SETTLED" });
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
  });

  test("(real @x402/fetch + @x402/svm, embedded litesvm ledger) an underfunded buyer is not served and nothing moves", async () => {
    const buyer = await newBuyer(stack, 0n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();

    const reply = await readReply(await buyer.payFetch(url));

    expect(reply.status).toBe(402);
    expect(reply.paymentRequired?.["error"]).toBe("INSUFFICIENT_FUNDS");
    expect(stack.handlerRuns()).toBe(runsBefore);
    expect(await stack.usdc(buyer.address)).toBe(0n);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore);
  });
});
