import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { Address } from "@solana/kit";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension, withBazaar } from "@x402/extensions/bazaar";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import express from "express";
import { SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { buildSampleRegistry, type BuiltSampleAgent } from "../../src/infrastructure/registry/sample-agents/sample-agent-accounts.ts";
import { type Stack, PRICE, USDC, newBuyer, readReply, startStack } from "./support/paid-resource-stack.ts";

/**
 * The catalogue joined to the registry, end to end with the REAL official packages: a stock
 * @x402/express seller whose payTo is the owner of a registered agent (the sample registry's
 * payable "Weather Oracle", seeded on the embedded ledger) is paid by @x402/fetch twice; the
 * entry then carries the agent, the agent/category filters find it, and the registry's agent
 * detail shows the two payments settled through this facilitator (and `minPayments` lists it).
 */
describe("Bazaar catalogue joined to the registry (real @x402/express + @x402/fetch + withBazaar, embedded litesvm ledger, sample registry)", () => {
  let stack: Stack;
  let sellerUrl: string;
  let agent: BuiltSampleAgent;
  let stopSeller: () => Promise<void>;
  const buyers: Address[] = [];

  beforeAll(async () => {
    stack = await startStack();
    await stack.service.registryIndex.ready();
    agent = (await buildSampleRegistry(stack.service.config.REGISTRY_PROGRAM_ID as Address, USDC)).payable;

    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: stack.facilitatorUrl })).register(SOLANA_DEVNET, new ExactSvmServerScheme());
    server.registerExtension(bazaarResourceServerExtension);
    const app = express();
    app.use(
      paymentMiddleware(
        {
          "GET /v1/forecast": {
            accepts: { scheme: "exact", price: { amount: PRICE.toString(), asset: USDC }, network: SOLANA_DEVNET, payTo: agent.owner, maxTimeoutSeconds: 60 },
            description: "Hourly forecast by the Weather Oracle agent",
            mimeType: "application/json",
            extensions: { ...declareDiscoveryExtension({ input: { city: "Lisbon" }, inputSchema: { properties: { city: { type: "string" } } } }) },
          },
        },
        server,
      ),
    );
    app.get("/v1/forecast", (_req, res) => {
      res.json({ city: "Lisbon", celsius: 21 });
    });
    const listening: Server = await new Promise((resolve, reject) => {
      const s = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(s)));
    });
    stopSeller = () =>
      new Promise<void>((resolve) => {
        listening.closeAllConnections();
        listening.close(() => resolve());
      });
    sellerUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;

    for (let i = 0; i < 2; i++) {
      const buyer = await newBuyer(stack, 1_000_000n);
      buyers.push(buyer.address);
      expect((await readReply(await buyer.payFetch(`${sellerUrl}/v1/forecast?city=Lisbon`))).status).toBe(200);
    }
    await stack.service.discovery?.recorder.idle();
  });

  afterAll(async () => {
    await stopSeller?.();
    await stack?.stop();
  });

  const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: stack.facilitatorUrl })).extensions.bazaar;
  const registry = async (path: string) => {
    const response = await stack.service.registryApp.handle(new Request(`http://registry.test${path}`));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  test("the entry paid to a registered agent's owner carries the agent: nftMint, categories, reputation", async () => {
    const { items } = await bazaar().listResources();
    const entry = items.find((item) => item.resource === `${sellerUrl}/v1/forecast`) as (typeof items)[number] & { agent?: unknown };
    expect(entry?.agent).toMatchObject({ nftMint: agent.nftMint, categories: ["data", "analytics"], reputation: { verifiedCount: 4, unverifiedCount: 1 } });
  });

  test("filters by agent and by category (a plain HTTP query, as withBazaar's typed params do not name them)", async () => {
    const list = async (query: string) => (await (await fetch(`${stack.facilitatorUrl}/discovery/resources?${query}`)).json()) as { items: { resource: string }[]; pagination: { total: number } };
    expect((await list(`agent=${agent.nftMint}`)).items.map((i) => i.resource)).toEqual([`${sellerUrl}/v1/forecast`]);
    expect((await list("category=analytics")).items.map((i) => i.resource)).toEqual([`${sellerUrl}/v1/forecast`]);
    expect((await list("category=defi")).pagination.total).toBe(0);
    expect((await list("agent=9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")).pagination.total).toBe(0);
    const searched = (await (await fetch(`${stack.facilitatorUrl}/discovery/search?query=forecast&category=data`)).json()) as { resources: { resource: string }[] };
    expect(searched.resources.map((r) => r.resource)).toEqual([`${sellerUrl}/v1/forecast`]);
  });

  test("the agent's detail gains `payments`: the two settlements through this facilitator, per asset, with distinct payers and times", async () => {
    const { status, body } = await registry(`/agents/${agent.nftMint}`);
    expect(status).toBe(200);
    const payments = body["payments"] as Record<string, unknown>;
    expect(payments).toMatchObject({
      scope: "settled through this facilitator",
      count: 2,
      volume: [{ asset: USDC, amount: (2n * PRICE).toString() }],
      distinctPayers: 2,
      last30Days: { count: 2, volume: [{ asset: USDC, amount: (2n * PRICE).toString() }] },
    });
    expect(Date.parse(String(payments["firstAt"]))).toBeLessThanOrEqual(Date.parse(String(payments["lastAt"])));
  });

  test("an agent nobody paid here shows zero payments, and minPayments lists only the paid agent", async () => {
    const registryAgents = await registry("/agents?limit=100");
    const other = (registryAgents.body["data"] as { nftMint: string }[]).find((a) => a.nftMint !== agent.nftMint);
    const unpaid = await registry(`/agents/${other?.nftMint}`);
    expect(unpaid.body["payments"]).toMatchObject({ count: 0, volume: [], distinctPayers: 0, firstAt: null, lastAt: null });

    const paid = await registry("/agents?minPayments=1");
    expect((paid.body["data"] as { nftMint: string }[]).map((a) => a.nftMint)).toEqual([agent.nftMint]);
    expect(((await registry("/agents?minPayments=3")).body["data"] as unknown[]).length).toBe(0);
    expect((await registry("/agents?minPayments=lots")).status).toBe(400);
  });
});
