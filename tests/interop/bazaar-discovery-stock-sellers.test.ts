import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { bazaarResourceServerExtension, declareDiscoveryExtension, withBazaar } from "@x402/extensions/bazaar";
import { paymentMiddleware as expressPaymentMiddleware, x402ResourceServer as ExpressResourceServer } from "@x402/express";
import { paymentMiddleware as honoPaymentMiddleware, x402ResourceServer as HonoResourceServer } from "@x402/hono";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import express from "express";
import { Hono } from "hono";
import { SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { type Stack, PRICE, USDC, newBuyer, readReply, startStack } from "./support/paid-resource-stack.ts";

/**
 * x402 Bazaar discovery end to end, with nothing but the REAL official packages around our
 * facilitator (embedded litesvm ledger, real SPL Token, PGlite): two sellers, one on
 * @x402/express 2.27.0 and one on @x402/hono 2.27.0, declare their endpoints with
 * `declareDiscoveryExtension` (and register `bazaarResourceServerExtension`, which adds the
 * method, as the Bazaar docs show); a buyer on @x402/fetch pays each; then @x402/extensions'
 * `withBazaar` client lists and searches our /discovery routes and finds both.
 */
describe("Bazaar discovery: stock @x402/express and @x402/hono sellers paid by @x402/fetch, found through withBazaar (real packages, embedded litesvm ledger)", () => {
  let stack: Stack;
  let expressUrl: string;
  let honoUrl: string;
  const stops: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    stack = await startStack();
    stops.push(() => stack.stop());

    const expressServer = new ExpressResourceServer(new HTTPFacilitatorClient({ url: stack.facilitatorUrl })).register(SOLANA_DEVNET, new ExactSvmServerScheme());
    expressServer.registerExtension(bazaarResourceServerExtension);
    const app = express();
    app.use(
      expressPaymentMiddleware(
        {
          "GET /forecast": {
            accepts: { scheme: "exact", price: { amount: PRICE.toString(), asset: USDC }, network: SOLANA_DEVNET, payTo: stack.merchant, maxTimeoutSeconds: 60 },
            description: "Seven-day tidal forecast for a harbour",
            mimeType: "application/json",
            extensions: {
              ...declareDiscoveryExtension({
                input: { harbour: "Lisbon" },
                inputSchema: { properties: { harbour: { type: "string", description: "harbour name" } }, required: ["harbour"] },
                output: { example: { harbour: "Lisbon", highTide: "06:12" } },
              }),
            },
          },
        },
        expressServer,
      ),
    );
    app.get("/forecast", (_req, res) => {
      res.json({ harbour: "Lisbon", highTide: "06:12" });
    });
    const server: Server = await new Promise((resolve, reject) => {
      const listening = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(listening)));
    });
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    expressUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const honoServer = new HonoResourceServer(new HTTPFacilitatorClient({ url: stack.facilitatorUrl })).register(SOLANA_DEVNET, new ExactSvmServerScheme());
    honoServer.registerExtension(bazaarResourceServerExtension);
    const hono = new Hono();
    hono.use(
      honoPaymentMiddleware(
        {
          "POST /translate": {
            accepts: { scheme: "exact", price: { amount: PRICE.toString(), asset: USDC }, network: SOLANA_DEVNET, payTo: stack.merchant, maxTimeoutSeconds: 60 },
            description: "Translate a sentence into Portuguese",
            mimeType: "application/json",
            extensions: {
              ...declareDiscoveryExtension({
                bodyType: "json",
                input: { text: "good morning" },
                inputSchema: { properties: { text: { type: "string" } }, required: ["text"] },
                output: { example: { text: "bom dia" } },
              }),
            },
          },
        },
        honoServer,
      ),
    );
    hono.post("/translate", (c) => c.json({ text: "bom dia" }));
    const honoListener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: hono.fetch });
    stops.push(() => honoListener.stop(true));
    honoUrl = `http://127.0.0.1:${honoListener.port}`;
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: stack.facilitatorUrl })).extensions.bazaar;

  test("(real @x402/extensions withBazaar) nothing is listed before a payment settles: a 402 challenge alone catalogues nothing", async () => {
    const unpaid = await fetch(`${expressUrl}/forecast?harbour=Lisbon`);
    expect(unpaid.status).toBe(402);
    const listed = await bazaar().listResources();
    expect(listed).toMatchObject({ x402Version: 2, items: [], pagination: { limit: 20, offset: 0, total: 0 } });
  });

  test("(real @x402/express + @x402/hono + @x402/fetch + withBazaar) both paid endpoints are listed with their declarations, accepts and payTo", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const forecast = await readReply(await buyer.payFetch(`${expressUrl}/forecast?harbour=Lisbon`));
    expect(forecast.status).toBe(200);
    const translate = await readReply(await buyer.payFetch(`${honoUrl}/translate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "good morning" }) }));
    expect(translate.status).toBe(200);
    expect(translate.paymentResponse).toMatchObject({ success: true });
    await stack.service.discovery?.recorder.idle();

    const listed = await bazaar().listResources({ type: "http" });
    expect(listed.pagination.total).toBe(2);
    const byUrl = new Map(listed.items.map((item) => [item.resource, item]));
    const get = byUrl.get(`${expressUrl}/forecast`);
    const post = byUrl.get(`${honoUrl}/translate`);
    expect(get).toMatchObject({ type: "http", x402Version: 2, description: "Seven-day tidal forecast for a harbour", mimeType: "application/json" });
    expect(get?.accepts).toEqual([expect.objectContaining({ scheme: "exact", network: SOLANA_DEVNET, asset: USDC, amount: PRICE.toString(), payTo: stack.merchant })]);
    expect((get?.extensions?.["bazaar"] as { info: { input: { method: string; queryParams: unknown } } }).info.input).toMatchObject({ type: "http", method: "GET", queryParams: { harbour: "Lisbon" } });
    expect((post?.extensions?.["bazaar"] as { info: { input: { method: string; body: unknown } } }).info.input).toMatchObject({ type: "http", method: "POST", bodyType: "json", body: { text: "good morning" } });
    expect(Date.parse(get?.lastUpdated ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });

  test("(real withBazaar) filters and search: by payTo, network and words of the description", async () => {
    const client = bazaar();
    expect((await client.listResources({ payTo: stack.merchant, network: SOLANA_DEVNET })).pagination.total).toBe(2);
    expect((await client.listResources({ network: "eip155:8453" })).pagination.total).toBe(0);
    expect((await client.listResources({ limit: 1, offset: 1 })).items).toHaveLength(1);

    const found = await client.search({ query: "tidal harbour" });
    expect(found.resources.map((r) => r.resource)).toEqual([`${expressUrl}/forecast`]);
    const portuguese = await client.search({ query: "PORTUGUESE" });
    expect(portuguese.resources.map((r) => r.resource)).toEqual([`${honoUrl}/translate`]);
    expect((await client.search({ query: "nothing-declares-this" })).resources).toEqual([]);
  });

  test("(real @x402/fetch) paying the same endpoint again refreshes its entry and adds no second one", async () => {
    const before = (await bazaar().listResources()).items.find((item) => item.resource === `${expressUrl}/forecast`);
    const buyer = await newBuyer(stack, 1_000_000n);
    expect((await readReply(await buyer.payFetch(`${expressUrl}/forecast?harbour=Porto`))).status).toBe(200);
    await stack.service.discovery?.recorder.idle();
    const listed = await bazaar().listResources();
    expect(listed.pagination.total).toBe(2);
    const after = listed.items.find((item) => item.resource === `${expressUrl}/forecast`);
    expect(Date.parse(after?.lastUpdated ?? "")).toBeGreaterThanOrEqual(Date.parse(before?.lastUpdated ?? ""));
  });

  test("(real @x402/core HTTPFacilitatorClient) an invalid bazaar declaration never fails the payment: it settles, nothing is catalogued, and the metric counts it", async () => {
    const buyer = await newBuyer(stack, 1_000_000n);
    const payload = decodePaymentSignatureHeader(await buyer.buildPaymentHeader(`${expressUrl}/forecast?harbour=Faro`));
    const bazaarExtension = payload.extensions?.["bazaar"] as { info: unknown; schema: Record<string, unknown> };
    // Extensions are not signed: a client can send anything there, and the payment stays valid.
    const broken = { ...payload, resource: { url: `${expressUrl}/never-listed` }, extensions: { ...payload.extensions, bazaar: { ...bazaarExtension, schema: { ...bazaarExtension.schema, required: ["input", "missing"] } } } };
    const settled = await new HTTPFacilitatorClient({ url: stack.facilitatorUrl }).settle(broken, payload.accepted);
    expect(settled).toMatchObject({ success: true, payer: buyer.address });
    await stack.service.discovery?.recorder.idle();

    expect((await bazaar().listResources()).items.map((item) => item.resource)).not.toContain(`${expressUrl}/never-listed`);
    const metrics = await (await stack.service.facilitatorApp.handle(new Request("http://facilitator.test/metrics"))).text();
    expect(metrics).toMatch(/x402_discovery_declarations_total\{[^}]*outcome="invalid"[^}]*\} 1/);
    expect(metrics).toMatch(/x402_discovery_declarations_total\{[^}]*outcome="recorded"[^}]*\} [1-9]/);
  });
});
