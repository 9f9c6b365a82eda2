import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner, getBase64Encoder, getTransactionDecoder, type Signature } from "@solana/kit";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { PaymentPayloadV1, PaymentRequiredV1, PaymentRequirementsV1 } from "@x402/core/types/v1";
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import { ExactSvmSchemeV1 } from "@x402/svm/exact/v1/client";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { settlementKeyOf } from "../../src/domain/payment/settlement-key.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../../src/composition/service.ts";
import { usdcOf } from "../../fixtures/payments.ts";
import { type TestService, startService } from "../settlement/support/service-harness.ts";

/**
 * An x402 **v1** paid request end to end, through the REAL official buyer packages
 * (@x402/fetch 2.27.0 `wrapFetchWithPayment`, @x402/core 2.27.0 `x402Client`, @x402/svm 2.27.0
 * `ExactSvmSchemeV1`) against our facilitator (the real service: embedded litesvm ledger with
 * real SPL Token, PGlite) served over HTTP. Nothing is mocked.
 *
 * What the official buyer does with a v1 402 (read from the installed 2.27.0 packages):
 * - @x402/core `x402HTTPClient.getPaymentRequiredResponse` (dist/esm/chunk-FV2JN4FK.mjs) takes the
 *   PAYMENT-REQUIRED header first and otherwise a JSON body with `x402Version === 1`;
 * - `x402Client.createPaymentPayload` looks the scheme up under the body's x402Version (schemes
 *   registered with `registerV1`), applies spend controls to `maxAmountRequired` (devnet USDC is a
 *   default asset of @x402/svm, so the default $1 cap applies) and, for a v1 scheme, returns the
 *   scheme's payload as is: `{x402Version: 1, scheme, network: "solana-devnet", payload: {transaction}}`;
 * - `x402HTTPClient.encodePaymentSignatureHeader` sends it as `X-PAYMENT` (base64 JSON) for v1,
 *   `PAYMENT-SIGNATURE` for v2; the settle result is read from PAYMENT-RESPONSE or X-PAYMENT-RESPONSE,
 *   and v1 results skip the payment-response hooks (no "recovered" retry).
 *
 * `registerExactSvmScheme` (@x402/svm/exact/client) registers `ExactSvmSchemeV1` for "solana",
 * "solana-devnet" and "solana-testnet", but constructs it WITHOUT an rpcUrl, so it would fetch
 * the mint and the blockhash from the public devnet RPC. The tests register the same class with
 * `registerV1("solana-devnet", new ExactSvmSchemeV1(signer, {rpcUrl}))` against the embedded
 * ledger's JSON-RPC instead.
 *
 * The resource server: @x402/express 2.27.0 (x402ResourceServer / x402HTTPResourceServer) only
 * serves v2 and only reads PAYMENT-SIGNATURE, so a v1 resource server is written here by hand
 * (Bun.serve), doing what the v1 `x402-express` middleware did: 402 with the v1 body; on a retry
 * decode X-PAYMENT, match the requirements on scheme + network, verify, run the handler, settle,
 * then serve with X-PAYMENT-RESPONSE (base64 JSON of the settle result) or answer 402. It talks to
 * our facilitator through @x402/core's `HTTPFacilitatorClient`, which has no separate v1 client:
 * for v1 it POSTs `{x402Version: 1, paymentPayload: <the decoded X-PAYMENT object>,
 * paymentRequirements: <the v1 requirements>}` (chunk-FV2JN4FK.mjs, `verify`/`settle`).
 */

const USDC = DEVNET_USDC_MINT as Address;
const V1_NETWORK = "solana-devnet";
/** 0.01 USDC (6 decimals) per GET /weather. */
const PRICE = 10_000n;
const WEATHER = { city: "Porto", forecast: "cloudy", celsius: 17 } as const;

type FacilitatorCall = Readonly<{ path: string; body: Record<string, unknown> }>;

type V1Stack = Readonly<{
  service: TestService;
  ledger: LocalLedger;
  rpcUrl: string;
  resourceUrl: string;
  merchant: Address;
  feePayer: string;
  requirements: PaymentRequirementsV1;
  /** Every POST our facilitator received, in order, with its JSON body. */
  facilitatorCalls: FacilitatorCall[];
  handlerRuns(): number;
  usdc(owner: Address): Promise<bigint>;
  stop(): Promise<void>;
}>;

async function startV1Stack(): Promise<V1Stack> {
  const service = await startService();
  const stops: (() => Promise<void> | void)[] = [() => service.dispose()];
  try {
    const ledger = service.embeddedLedger;
    if (!ledger) throw new Error("the v1 stack needs the embedded ledger");
    const rpc = serveLocalLedgerRpc(ledger, { port: 0 });
    stops.unshift(() => rpc.stop());

    const facilitatorCalls: FacilitatorCall[] = [];
    const facilitatorServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        if (request.method === "POST") {
          facilitatorCalls.push({ path: new URL(request.url).pathname, body: (await request.clone().json()) as Record<string, unknown> });
        }
        return service.facilitatorApp.fetch(request);
      },
    });
    stops.unshift(() => facilitatorServer.stop(true));
    const facilitator = new HTTPFacilitatorClient({ url: `http://127.0.0.1:${facilitatorServer.port}` });

    // The fee payer a v1 resource server puts in extra.feePayer: our /supported's v1 kind.
    const supported = await facilitator.getSupported();
    // @x402/core types every network as CAIP-2; the v1 kind carries the v1 name.
    const v1Kind = supported.kinds.find((kind) => kind.x402Version === 1 && kind.scheme === "exact" && String(kind.network) === V1_NETWORK);
    const feePayer = v1Kind?.extra?.["feePayer"];
    if (typeof feePayer !== "string") throw new Error(`no v1 solana-devnet kind with a feePayer in ${JSON.stringify(supported)}`);

    const merchant = (await generateKeyPairSigner()).address;
    await ledger.setTokenAccount(merchant, USDC, { amount: 0n });

    let runs = 0;
    let requirements: PaymentRequirementsV1 | null = null;
    const resourceServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        if (!requirements) throw new Error("requirements not set");
        return serveV1Paid(request, requirements, facilitator, () => {
          runs += 1;
          return WEATHER;
        });
      },
    });
    stops.unshift(() => resourceServer.stop(true));
    const resourceUrl = `http://127.0.0.1:${resourceServer.port}`;
    requirements = {
      scheme: "exact",
      network: V1_NETWORK as PaymentRequirementsV1["network"],
      maxAmountRequired: PRICE.toString(),
      resource: `${resourceUrl}/weather`,
      description: "today's weather",
      mimeType: "application/json",
      outputSchema: {},
      payTo: merchant,
      maxTimeoutSeconds: 60,
      asset: USDC,
      extra: { feePayer },
    };

    return Object.freeze({
      service,
      ledger,
      rpcUrl: rpc.url,
      resourceUrl,
      merchant,
      feePayer,
      requirements,
      facilitatorCalls,
      handlerRuns: () => runs,
      usdc: (owner: Address) => usdcOf(ledger, owner),
      stop: async () => {
        for (const stop of stops) await stop();
      },
    });
  } catch (error) {
    for (const stop of stops) await stop();
    throw error;
  }
}

/** A v1 resource server's handling of one request, as the v1 x402-express middleware did it. */
async function serveV1Paid(
  request: Request,
  requirements: PaymentRequirementsV1,
  facilitator: HTTPFacilitatorClient,
  handler: () => unknown,
): Promise<Response> {
  const challenge = (error: string, payer?: string): Response =>
    Response.json({ x402Version: 1, error, accepts: [requirements], ...(payer ? { payer } : {}) } satisfies PaymentRequiredV1 & { payer?: string }, {
      status: 402,
    });
  if (new URL(request.url).pathname !== "/weather") return new Response("not found", { status: 404 });
  const header = request.headers.get("X-PAYMENT");
  if (!header) return challenge("X-PAYMENT header is required");

  let payment: PaymentPayloadV1;
  try {
    payment = { ...(decodePaymentSignatureHeader(header) as unknown as PaymentPayloadV1), x402Version: 1 };
  } catch {
    return challenge("Invalid or malformed payment header");
  }
  if (payment.scheme !== requirements.scheme || payment.network !== requirements.network) {
    return challenge("Unable to find matching payment requirements");
  }
  // @x402/core's HTTPFacilitatorClient is typed for v2 but sends whatever payload it is given.
  const asPayload = payment as unknown as PaymentPayload;
  const asRequirements = requirements as unknown as PaymentRequirements;

  const verified = await facilitator.verify(asPayload, asRequirements);
  if (!verified.isValid) return challenge(verified.invalidReason ?? "verification failed", verified.payer);

  const content = handler();

  let settled: SettleResponse;
  try {
    settled = await facilitator.settle(asPayload, asRequirements);
  } catch (error) {
    return challenge(error instanceof Error ? error.message : "settlement failed");
  }
  if (!settled.success) return challenge(settled.errorReason ?? "settlement failed", settled.payer);
  return Response.json(content, { headers: { "X-PAYMENT-RESPONSE": btoa(JSON.stringify(settled)) } });
}

type V1Buyer = Readonly<{
  address: Address;
  payFetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  http: x402HTTPClient;
  /** Every request the wrapped fetch sent: its payment headers, by name. */
  sent: { xPayment: string | null; paymentSignature: string | null }[];
}>;

/** A buyer holding `usdc` base units, paying v1 through the official client packages. */
async function newV1Buyer(stack: V1Stack, usdc: bigint): Promise<V1Buyer> {
  const signer = await generateKeyPairSigner();
  await stack.ledger.setTokenAccount(signer.address, USDC, { amount: usdc });
  const client = new x402Client().registerV1(V1_NETWORK, new ExactSvmSchemeV1(signer, { rpcUrl: stack.rpcUrl }));
  const sent: V1Buyer["sent"] = [];
  const recordingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({ xPayment: request.headers.get("X-PAYMENT"), paymentSignature: request.headers.get("PAYMENT-SIGNATURE") });
    return fetch(request);
  }) as typeof fetch;
  return Object.freeze({ address: signer.address, payFetch: wrapFetchWithPayment(recordingFetch, client), http: new x402HTTPClient(client), sent });
}

function decodeBase64Json(value: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)))) as Record<string, unknown>;
}

/** The store key our facilitator records a payment under (SHA-256 of the message bytes). */
function settlementKeyOfTransaction(base64: string): string {
  return settlementKeyOf(new Uint8Array(getTransactionDecoder().decode(getBase64Encoder().encode(base64)).messageBytes));
}

describe("official x402 v1 buyer (@x402/fetch + @x402/svm ExactSvmSchemeV1 2.27.0) through a hand-written v1 resource server against our facilitator (real service, embedded litesvm ledger)", () => {
  let stack: V1Stack;
  let url: string;
  beforeAll(async () => {
    stack = await startV1Stack();
    url = `${stack.resourceUrl}/weather`;
  }, 30_000);
  afterAll(() => stack?.stop());

  test("(real @x402/fetch + ExactSvmSchemeV1, real facilitator over HTTP, embedded litesvm ledger) a v1 paid request: X-PAYMENT sent, 200 with X-PAYMENT-RESPONSE, content served once, the price moved once, the settlement recorded and confirmed", async () => {
    const buyer = await newV1Buyer(stack, 1_000_000n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();
    const callsBefore = stack.facilitatorCalls.length;

    const response = await buyer.payFetch(url);
    const body = await response.json();

    expect(response.status).toBe(200);
    expect(body).toEqual(WEATHER);
    expect(stack.handlerRuns() - runsBefore).toBe(1);

    // The official buyer: first a plain request, then one retry carrying X-PAYMENT (never PAYMENT-SIGNATURE).
    expect(buyer.sent).toHaveLength(2);
    expect(buyer.sent[0]).toEqual({ xPayment: null, paymentSignature: null });
    const header = buyer.sent[1]?.xPayment ?? "";
    expect(buyer.sent[1]?.paymentSignature).toBeNull();
    const payment = decodeBase64Json(header);
    expect(Object.keys(payment).sort()).toEqual(["network", "payload", "scheme", "x402Version"]);
    expect(payment).toMatchObject({ x402Version: 1, scheme: "exact", network: V1_NETWORK });
    const transaction = String((payment["payload"] as Record<string, unknown>)["transaction"]);

    // What reached our facilitator: the v1 wire form, verify then settle, once each.
    const calls = stack.facilitatorCalls.slice(callsBefore);
    expect(calls.map((c) => c.path)).toEqual(["/verify", "/settle"]);
    for (const call of calls) {
      expect(call.body).toEqual({ x402Version: 1, paymentPayload: payment, paymentRequirements: { ...stack.requirements } });
    }

    // The settle result, as the official buyer reads it from X-PAYMENT-RESPONSE.
    const settled = buyer.http.getPaymentSettleResponse((name) => response.headers.get(name));
    expect(settled).toMatchObject({ success: true, payer: buyer.address });
    // Our facilitator answers v1 requests with the CAIP-2 network, not the v1 name.
    expect(settled.network).toBe(SOLANA_DEVNET);
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);

    const record = await stack.service.store.settlements.get(settlementKeyOfTransaction(transaction));
    expect(record).toMatchObject({ state: "settled", signature: settled.transaction, payer: buyer.address, payTo: stack.merchant, asset: USDC, amount: PRICE });
    const onLedger = stack.ledger.getTransaction(settled.transaction as Signature);
    expect(onLedger).not.toBeNull();
    expect(onLedger?.err).toBeNull();
  });

  test("(real @x402/fetch X-PAYMENT header, plain fetch resend) the same X-PAYMENT replayed after settlement is not served: our /verify answers ALREADY_SETTLED, 402, nothing moves", async () => {
    const buyer = await newV1Buyer(stack, 1_000_000n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const first = await buyer.payFetch(url);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual(WEATHER);
    const header = buyer.sent[1]?.xPayment ?? "";
    expect(header).not.toBe("");
    const runsAfterFirst = stack.handlerRuns();
    const callsAfterFirst = stack.facilitatorCalls.length;

    for (let i = 0; i < 2; i++) {
      const again = await fetch(url, { headers: { "X-PAYMENT": header } });
      expect(again.status).toBe(402);
      expect(again.headers.get("X-PAYMENT-RESPONSE")).toBeNull();
      expect(await again.json()).toEqual({ x402Version: 1, error: "ALREADY_SETTLED", accepts: [{ ...stack.requirements }], payer: buyer.address });
    }

    expect(stack.handlerRuns()).toBe(runsAfterFirst);
    // Only /verify was asked; nothing was settled again.
    expect(stack.facilitatorCalls.slice(callsAfterFirst).map((c) => c.path)).toEqual(["/verify", "/verify"]);
    expect(await stack.usdc(buyer.address)).toBe(1_000_000n - PRICE);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore + PRICE);
  });

  test("(real @x402/fetch + ExactSvmSchemeV1, embedded litesvm ledger) an underfunded v1 buyer gets 402: our facilitator answers INSUFFICIENT_FUNDS, the handler never runs, nothing moves", async () => {
    const buyer = await newV1Buyer(stack, PRICE - 1n);
    const merchantBefore = await stack.usdc(stack.merchant);
    const runsBefore = stack.handlerRuns();
    const callsBefore = stack.facilitatorCalls.length;

    const response = await buyer.payFetch(url);

    expect(response.status).toBe(402);
    expect(await response.json()).toEqual({ x402Version: 1, error: "INSUFFICIENT_FUNDS", accepts: [{ ...stack.requirements }], payer: buyer.address });
    // The official buyer paid once (X-PAYMENT) and did not retry on its own.
    expect(buyer.sent).toHaveLength(2);
    expect(buyer.sent[1]?.xPayment).toBeString();
    expect(stack.handlerRuns()).toBe(runsBefore);
    expect(stack.facilitatorCalls.slice(callsBefore).map((c) => c.path)).toEqual(["/verify"]);
    expect(await stack.usdc(buyer.address)).toBe(PRICE - 1n);
    expect(await stack.usdc(stack.merchant)).toBe(merchantBefore);
    // Nothing recorded for it either.
    const payment = decodeBase64Json(buyer.sent[1]?.xPayment ?? "");
    const transaction = String((payment["payload"] as Record<string, unknown>)["transaction"]);
    expect(await stack.service.store.settlements.get(settlementKeyOfTransaction(transaction))).toBeNull();
  });
});
