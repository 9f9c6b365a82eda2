/**
 * A real x402 stack on one machine, built from the official packages:
 *
 * - our facilitator: the real service (`startService`, embedded litesvm ledger with real SPL
 *   Token, PGlite) served over HTTP with Bun.serve, plus the ledger's JSON-RPC (serveLedgerRpc)
 *   for the buyer's @x402/svm client;
 * - a resource server: express 5 with the stock `paymentMiddleware` of @x402/express, whose
 *   `x402ResourceServer` talks to our facilitator through @x402/core's `HTTPFacilitatorClient`;
 * - buyers: @x402/fetch's `wrapFetchWithPayment` with an `x402Client` holding @x402/svm's
 *   `ExactSvmScheme`, funded with USDC through the embedded ledger's cheat codes.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { type Address, type KeyPairSigner, generateKeyPairSigner } from "@solana/kit";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import {
  PAYMENT_IDENTIFIER,
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  paymentIdentifierResourceServerExtension,
} from "@x402/extensions/payment-identifier";
import express from "express";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../../src/domain/networks.ts";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { createLocalLedger, serveLocalLedgerRpc } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { type LedgerRpcServer } from "@x84/embedded-ledger";
import { type TestService, startService } from "../../settlement/support/service-harness.ts";
import { newFeePayerKey, usdcOf } from "../../../fixtures/payments.ts";
import { startLedgerProxy } from "../../../fixtures/ledger-proxy.ts";

export const USDC = DEVNET_USDC_MINT as Address;
/** 0.01 USDC (6 decimals) per GET /weather. */
export const PRICE = 10_000n;
export const WEATHER = { city: "Lisbon", forecast: "sunny", celsius: 21 } as const;

export type Stack = Readonly<{
  service: TestService;
  ledger: LocalLedger;
  rpcUrl: string;
  facilitatorUrl: string;
  resourceUrl: string;
  merchant: Address;
  /** Times the GET /weather handler ran (the stock middleware runs it before settling). */
  handlerRuns(): number;
  /** Makes the next handler runs wait for `gate` before answering (null: answer at once). */
  holdHandlers(gate: Promise<unknown> | null): void;
  /** Resolves once the handler has run `count` times in total, or after `timeoutMs`. */
  handlerRunsReach(count: number, timeoutMs: number): Promise<void>;
  usdc(owner: Address): Promise<bigint>;
  stop(): Promise<void>;
}>;

export type StackOptions = Readonly<{
  /**
   * The facilitator reaches the embedded ledger over JSON-RPC through a proxy that reports each
   * transaction as `processed` (not yet `confirmed`) for this long after it was first asked about:
   * a ledger whose confirmations are slower than SETTLE_CONFIRM_DEADLINE_MS.
   */
  confirmationDelayMs?: number;
  /**
   * The route declares the x402 payment-identifier extension (the stock
   * `declarePaymentIdentifierExtension()`, with the stock resource-server extension registered).
   */
  paymentIdentifier?: boolean;
}>;

export async function startStack(env: Readonly<Record<string, string>> = {}, options: StackOptions = {}): Promise<Stack> {
  const stops: (() => Promise<void> | void)[] = [];
  const { service, ledger } = await startFacilitator(env, options, stops);
  stops.unshift(() => service.dispose());
  try {
    const rpc: LedgerRpcServer = serveLocalLedgerRpc(ledger, { port: 0 });
    stops.unshift(() => rpc.stop());
    const facilitator = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: service.facilitatorApp.fetch });
    stops.unshift(() => facilitator.stop(true));
    const facilitatorUrl = `http://127.0.0.1:${facilitator.port}`;

    const merchant = (await generateKeyPairSigner()).address;
    // The exact scheme pays the merchant's associated token account, which must exist.
    await ledger.setTokenAccount(merchant, USDC, { amount: 0n });

    let runs = 0;
    let gate: Promise<unknown> | null = null;
    const waiters = new Set<Readonly<{ count: number; resolve: () => void }>>();
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(
      SOLANA_DEVNET,
      new ExactSvmServerScheme(),
    );
    if (options.paymentIdentifier) resourceServer.registerExtension(paymentIdentifierResourceServerExtension);
    const app = express();
    app.use(
      paymentMiddleware(
        {
          "GET /weather": {
            accepts: { scheme: "exact", price: { amount: PRICE.toString(), asset: USDC }, network: SOLANA_DEVNET, payTo: merchant, maxTimeoutSeconds: 60 },
            description: "today's weather",
            mimeType: "application/json",
            ...(options.paymentIdentifier ? { extensions: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension() } } : {}),
          },
        },
        resourceServer,
      ),
    );
    app.get("/weather", async (_req, res) => {
      runs += 1;
      for (const waiter of waiters) if (runs >= waiter.count) waiter.resolve();
      if (gate) await gate;
      res.json(WEATHER);
    });
    const server: Server = await new Promise((resolve, reject) => {
      const listening = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(listening)));
    });
    stops.unshift(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const resourceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    return Object.freeze({
      service,
      ledger,
      rpcUrl: rpc.url,
      facilitatorUrl,
      resourceUrl,
      merchant,
      handlerRuns: () => runs,
      holdHandlers: (next: Promise<unknown> | null) => {
        gate = next;
      },
      handlerRunsReach: (count: number, timeoutMs: number) =>
        new Promise<void>((resolve) => {
          if (runs >= count) return resolve();
          const waiter = {
            count,
            resolve: () => {
              clearTimeout(timer);
              waiters.delete(waiter);
              resolve();
            },
          };
          const timer = setTimeout(waiter.resolve, timeoutMs);
          waiters.add(waiter);
        }),
      usdc: (owner: Address) => usdcOf(ledger, owner),
      stop: () => stopAll(stops),
    });
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
}

/** The service on the embedded ledger, or (with a confirmation delay) on a ledger reached through a slow-confirming proxy. */
async function startFacilitator(env: Readonly<Record<string, string>>, options: StackOptions, stops: (() => Promise<void> | void)[]): Promise<Readonly<{ service: TestService; ledger: LocalLedger }>> {
  const delayMs = options.confirmationDelayMs;
  if (delayMs === undefined) {
    const service = await startService(env);
    if (!service.embeddedLedger) throw new Error("the stack needs the embedded ledger");
    return { service, ledger: service.embeddedLedger };
  }
  const ledger = createLocalLedger();
  const firstAsked = new Map<string, number>();
  const proxy = startLedgerProxy(ledger, {
    rule: async (call, forward) => {
      if (call.method !== "getSignatureStatuses") return forward();
      const answer = (await (await forward()).json()) as { result?: { value?: ({ confirmationStatus: string } | null)[] } };
      const signatures = (Array.isArray(call.params[0]) ? call.params[0] : []) as string[];
      answer.result?.value?.forEach((status, i) => {
        const signature = signatures[i];
        if (!status || signature === undefined) return;
        const first = firstAsked.get(signature) ?? Date.now();
        firstAsked.set(signature, first);
        if (Date.now() - first < delayMs) status.confirmationStatus = "processed";
      });
      return Response.json(answer);
    },
  });
  stops.push(() => proxy.stop());
  const key = await newFeePayerKey();
  await ledger.airdrop(key.address, 10_000_000_000n);
  const service = await startService({ ...env, SOLANA_RPC_URL: proxy.url, SEED_SAMPLE_AGENTS: "false", FEE_PAYER_PRIVATE_KEY: key.json });
  return { service, ledger };
}

async function stopAll(stops: readonly (() => Promise<void> | void)[]): Promise<void> {
  for (const stop of stops) await stop();
}

export type Buyer = Readonly<{
  signer: KeyPairSigner;
  address: Address;
  /** @x402/fetch's wrapped fetch: pays on a 402 and retries with PAYMENT-SIGNATURE. */
  payFetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** Every PAYMENT-SIGNATURE / X-PAYMENT header the wrapped fetch sent, in order. */
  sentPaymentHeaders: readonly string[];
  /** One payment header built by the official client for `url`, without sending it. */
  buildPaymentHeader(url: string): Promise<string>;
}>;

export type BuyerOptions = Readonly<{
  /**
   * Every payment carries this x402 payment-identifier id, appended the stock way (an
   * `onBeforePaymentCreation` hook calling `appendPaymentIdentifierToExtensions`), when the
   * resource server declared the extension.
   */
  paymentIdentifier?: string;
}>;

/** A buyer holding `usdc` base units, paying with the official @x402/svm exact client. */
export async function newBuyer(stack: Stack, usdc: bigint, options: BuyerOptions = {}): Promise<Buyer> {
  const signer = await generateKeyPairSigner();
  await stack.ledger.setTokenAccount(signer.address, USDC, { amount: usdc });
  const client = new x402Client().register(SOLANA_DEVNET, new ExactSvmClientScheme(signer, { rpcUrl: stack.rpcUrl }));
  const id = options.paymentIdentifier;
  if (id !== undefined) {
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      appendPaymentIdentifierToExtensions((paymentRequired.extensions ??= {}), id);
    });
  }
  const sent: string[] = [];
  const recordingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const header = request.headers.get("PAYMENT-SIGNATURE") ?? request.headers.get("X-PAYMENT");
    if (header) sent.push(header);
    return fetch(request);
  }) as typeof fetch;
  const http = new x402HTTPClient(client);
  return Object.freeze({
    signer,
    address: signer.address,
    payFetch: wrapFetchWithPayment(recordingFetch, client),
    sentPaymentHeaders: sent,
    async buildPaymentHeader(url: string) {
      // What wrapFetchWithPayment does between the 402 and its retry.
      const unpaid = await fetch(url);
      if (unpaid.status !== 402) throw new Error(`expected 402, got ${unpaid.status}`);
      const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.text().then((t) => (t ? JSON.parse(t) : undefined)));
      const headers = http.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
      const header = headers["PAYMENT-SIGNATURE"] ?? headers["X-PAYMENT"];
      if (!header) throw new Error(`no payment header in ${JSON.stringify(Object.keys(headers))}`);
      return header;
    },
  });
}

export type Reply = Readonly<{
  status: number;
  body: unknown;
  /** Decoded PAYMENT-RESPONSE header (the settle result the middleware passes on), if any. */
  paymentResponse: Record<string, unknown> | null;
  /** Decoded PAYMENT-REQUIRED header (a 402 challenge; `error` carries the reason), if any. */
  paymentRequired: Record<string, unknown> | null;
}>;

export async function readReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  const settle = response.headers.get("PAYMENT-RESPONSE");
  const required = response.headers.get("PAYMENT-REQUIRED");
  return {
    status: response.status,
    body,
    paymentResponse: settle ? { ...decodePaymentResponseHeader(settle) } : null,
    paymentRequired: required ? { ...decodePaymentRequiredHeader(required) } : null,
  };
}

/** A plain GET (no payment logic) carrying a captured payment header. */
export async function resend(url: string, header: string): Promise<Reply> {
  return readReply(await fetch(url, { headers: { "PAYMENT-SIGNATURE": header } }));
}

/** True when the reply delivered the paid content. */
export const delivered = (reply: Reply): boolean => reply.status === 200 && JSON.stringify(reply.body) === JSON.stringify(WEATHER);
