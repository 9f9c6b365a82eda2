/**
 * `npm run demo`: the first run of a new user, against a running `npm start` (embedded ledger,
 * sample agents seeded):
 *
 *   1. lists the agents of the registry (GET /agents);
 *   2. picks the payable sample agent (GET /agents?q=weather-oracle.example.com) and its `api` service;
 *   3. pays that service through the STOCK x402 packages: an express resource server started here,
 *      standing in for the agent's endpoint, behind @x402/express's `paymentMiddleware`, which calls
 *      our facilitator through @x402/core's `HTTPFacilitatorClient`; a buyer wallet funded through the
 *      ledger's `surfnet_setTokenAccount` cheat code pays with @x402/fetch + the @x402/svm exact client;
 *   4. prints the balances before and after, the facilitator's /settle answer and what the ledger
 *      says of the transaction (getSignatureStatuses, getTransaction);
 *   5. registers an agent (demo-registration.ts): serves its metadata on 127.0.0.1, has the registry
 *      build register_agent (POST /agents/register), signs it as the owner and shows it decoded. It
 *      is not broadcast: the embedded ledger has no binary of the x84 registry program.
 *
 * URLs: REGISTRY_URL (http://127.0.0.1:3000), FACILITATOR_URL (http://127.0.0.1:4020),
 * LEDGER_RPC_URL (http://127.0.0.1:8899). Exits 1 with a message saying what to do when the
 * service is not running or something does not add up.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import { type Address, type Signature, createSolanaRpc, generateKeyPairSigner } from "@solana/kit";
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import express from "express";
import { RegistrationDemoError, demoRegistration } from "./demo-registration.ts";

const REGISTRY = trimSlash(process.env["REGISTRY_URL"] ?? "http://127.0.0.1:3000");
const FACILITATOR = trimSlash(process.env["FACILITATOR_URL"] ?? "http://127.0.0.1:4020");
const LEDGER = trimSlash(process.env["LEDGER_RPC_URL"] ?? "http://127.0.0.1:8899");

/** The sample agent whose owner can be paid (src/infrastructure/registry/sample-agents). */
const PAYABLE_AGENT_HOST = "weather-oracle.example.com";
const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address;
/** 0.01 USDC (6 decimals) per call, what the agent's verified feedback says its forecast costs. */
const PRICE = 10_000n;
const BUYER_USDC = 1_000_000n;

class DemoError extends Error {}

type Reputation = { verifiedCount: number; verifiedAvgScore: number; unverifiedCount: number; unverifiedAvgScore: number };
type AgentItem = { nftMint: Address; owner: Address; metadataUri: string; categories: string[]; active: boolean; reputation: Reputation };
type ServiceItem = { serviceType: string; endpoint: string; version: string; active: boolean };
type AgentDetail = AgentItem & { address: Address; services: ServiceItem[] };

const rpc = createSolanaRpc(LEDGER);

async function main(): Promise<void> {
  await checkRunning();

  // 1. The registry.
  const listed = await getJson<{ data: AgentItem[] }>(REGISTRY, "/agents?limit=100");
  if (listed.data.length === 0) {
    throw new DemoError("the registry lists no agents: start the service with the embedded ledger (no SOLANA_RPC_URL) and SEED_SAMPLE_AGENTS unset or true");
  }
  console.log(`1. GET ${REGISTRY}/agents: ${listed.data.length} agents\n`);
  printAgents(listed.data);

  // 2. The payable agent and the service to pay.
  const found = await getJson<{ data: AgentItem[] }>(REGISTRY, `/agents?q=${encodeURIComponent(PAYABLE_AGENT_HOST)}`);
  const [listedAgent] = found.data;
  if (found.data.length !== 1 || !listedAgent) throw new DemoError(`expected one agent at ${PAYABLE_AGENT_HOST}, the registry has ${found.data.length}: is SEED_SAMPLE_AGENTS off?`);
  const agent = await getJson<AgentDetail>(REGISTRY, `/agents/${listedAgent.nftMint}`);
  const service = agent.services.find((s) => s.serviceType === "api" && s.active);
  if (!service) throw new DemoError(`agent ${agent.nftMint} has no active api service`);
  const payTo = agent.owner;
  console.log(`\n2. the payable agent (GET /agents?q=${PAYABLE_AGENT_HOST})`);
  console.log(`   agent ${agent.nftMint} (PDA ${agent.address})`);
  console.log(`   owner ${payTo}: the payTo of its services`);
  console.log(`   api   ${service.endpoint} (v${service.version})`);

  // 3. Its service behind the stock x402 middleware, and a buyer with the stock x402 client.
  const network = await supportedNetwork();
  const path = new URL(service.endpoint).pathname;
  const settleAnswers: SettleResponse[] = [];
  const resource = await startResourceServer({ path, payTo, network: network.id, settleAnswers });
  const buyer = await generateKeyPairSigner();
  await cheat("surfnet_setTokenAccount", [buyer.address, USDC, { amount: Number(BUYER_USDC) }]);
  const client = new x402Client().register(network.id, new ExactSvmClientScheme(buyer, { rpcUrl: LEDGER }));
  const sentHeaders: string[] = [];
  const recordingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const header = request.headers.get("PAYMENT-SIGNATURE");
    if (header) sentHeaders.push(header);
    return fetch(request);
  }) as typeof fetch;
  const payFetch = wrapFetchWithPayment(recordingFetch, client);
  const url = `${resource.url}${path}`;
  console.log(`\n3. pay ${format(PRICE)} USDC for GET ${path}`);
  console.log(`   resource server ${url}: express + @x402/express paymentMiddleware -> facilitator ${FACILITATOR}`);
  console.log(`   buyer ${buyer.address}, funded with ${format(BUYER_USDC)} USDC by surfnet_setTokenAccount, pays with @x402/fetch + @x402/svm`);

  try {
    const before = { buyer: await usdcOf(buyer.address), merchant: await usdcOf(payTo) };
    const response = await payFetch(url);
    const body = await response.text();
    console.log(`   GET ${path} -> ${response.status} ${body}`);
    if (response.status !== 200) {
      const required = response.headers.get("PAYMENT-REQUIRED");
      throw new DemoError(`the paid request was not served (${response.status}${required ? `, PAYMENT-REQUIRED ${Buffer.from(required, "base64").toString()}` : ""})`);
    }
    const header = response.headers.get("PAYMENT-RESPONSE");
    const settled = settleAnswers[0];
    if (!header || !settled?.success) throw new DemoError(`no successful settlement: ${JSON.stringify(settleAnswers)}`);

    // 4. Balances and the settlement, as the facilitator answered and as the ledger has it.
    const after = { buyer: await usdcOf(buyer.address), merchant: await usdcOf(payTo) };
    console.log(`\n4. balances (USDC)      before -> after`);
    console.log(`   buyer    ${format(before.buyer).padStart(10)} -> ${format(after.buyer)}`);
    console.log(`   merchant ${format(before.merchant).padStart(10)} -> ${format(after.merchant)}`);
    const relayed = JSON.stringify(decodePaymentResponseHeader(header));
    console.log(`\n   facilitator POST /settle answered: ${JSON.stringify(settled)}`);
    console.log(`   PAYMENT-RESPONSE header to the buyer: ${relayed === JSON.stringify(settled) ? "the same" : relayed}`);
    await printLedgerView(settled.transaction as Signature, { buyer: buyer.address, merchant: payTo, feePayers: network.feePayers });
    await printRecorded(sentHeaders[0]);

    if (before.buyer - after.buyer !== PRICE || after.merchant - before.merchant !== PRICE) {
      throw new DemoError(`the balances did not move by the price (${format(PRICE)} USDC)`);
    }
    console.log(`\npaid: ${format(PRICE)} USDC moved from the buyer to agent ${agent.nftMint}'s owner, settled in ${settled.transaction}`);
  } finally {
    await resource.stop();
  }

  // 5. Register an agent from this laptop (built, signed and decoded; not executable here).
  await demoRegistration(REGISTRY, rpc);
}

/** Every endpoint the demo needs, with a message that says what to do when one is missing. */
async function checkRunning(): Promise<void> {
  const start = "start it with `npm start` in another terminal, then run `npm run demo` again";
  for (const [name, url, setting] of [
    ["registry", `${REGISTRY}/health`, "REGISTRY_URL"],
    ["facilitator", `${FACILITATOR}/supported`, "FACILITATOR_URL"],
  ] as const) {
    const reply = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch((error: unknown) => error as Error);
    if (reply instanceof Error) throw new DemoError(`the ${name} is not running at ${url.replace(/\/[a-z]+$/, "")} (${reasonOf(reply)}): ${start} (or set ${setting})`);
    if (!reply.ok) throw new DemoError(`the ${name} at ${url} answered ${reply.status}`);
  }
  const health = await fetch(LEDGER, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
    signal: AbortSignal.timeout(5_000),
  }).catch((error: unknown) => error as Error);
  if (health instanceof Error) throw new DemoError(`the embedded ledger's JSON-RPC is not running at ${LEDGER} (${reasonOf(health)}): ${start} without SOLANA_RPC_URL (or set LEDGER_RPC_URL)`);
}

type Network = Readonly<{ id: `${string}:${string}`; feePayers: readonly string[] }>;

/** The network our facilitator settles on and its fee payers, from GET /supported. */
async function supportedNetwork(): Promise<Network> {
  const supported = await getJson<{ kinds: { x402Version: number; scheme: string; network: string }[]; signers?: Record<string, string[]> }>(FACILITATOR, "/supported");
  const kind = supported.kinds.find((k) => k.x402Version === 2 && k.scheme === "exact");
  if (!kind) throw new DemoError("the facilitator advertises no x402 v2 exact kind");
  return { id: kind.network as `${string}:${string}`, feePayers: Object.values(supported.signers ?? {}).flat() };
}

/** The stock HTTPFacilitatorClient, keeping each /settle answer it hands to the middleware. */
class RecordingFacilitatorClient extends HTTPFacilitatorClient {
  constructor(
    url: string,
    private readonly answers: SettleResponse[],
  ) {
    super({ url });
  }
  override async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const answer = await super.settle(payload, requirements);
    this.answers.push(answer);
    return answer;
  }
}

type ResourceOptions = Readonly<{ path: string; payTo: Address; network: `${string}:${string}`; settleAnswers: SettleResponse[] }>;

/** A stand-in for the agent's endpoint: express 5 with @x402/express's stock paymentMiddleware. */
async function startResourceServer(options: ResourceOptions): Promise<{ url: string; stop(): Promise<void> }> {
  const resourceServer = new x402ResourceServer(new RecordingFacilitatorClient(FACILITATOR, options.settleAnswers)).register(
    options.network,
    new ExactSvmServerScheme(),
  );
  const app = express();
  app.use(
    paymentMiddleware(
      {
        [`GET ${options.path}`]: {
          accepts: { scheme: "exact", price: { amount: PRICE.toString(), asset: USDC }, network: options.network, payTo: options.payTo, maxTimeoutSeconds: 60 },
          description: "Hourly forecast for one city",
          mimeType: "application/json",
        },
      },
      resourceServer,
    ),
  );
  app.get(options.path, (_req, res) => {
    res.json({ city: "Lisbon", hourly: [{ hour: "09:00", celsius: 18, sky: "clear" }, { hour: "12:00", celsius: 22, sky: "clear" }] });
  });
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The transaction as the ledger has it: its status and what it did to the two token balances. */
async function printLedgerView(signature: Signature, who: Readonly<{ buyer: Address; merchant: Address; feePayers: readonly string[] }>): Promise<void> {
  const { value: statuses } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
  const status = statuses[0];
  console.log(`   ledger getSignatureStatuses: ${status ? `${status.confirmationStatus} at slot ${status.slot}, err ${JSON.stringify(status.err)}` : "unknown signature"}`);
  const tx = await rpc.getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }).send();
  if (!tx) throw new DemoError(`the ledger does not know transaction ${signature}`);
  const feePayer = tx.transaction.message.accountKeys[0];
  const whose = feePayer && who.feePayers.includes(feePayer) ? "the facilitator's fee payer" : "NOT a fee payer the facilitator advertises";
  console.log(`   ledger getTransaction: slot ${tx.slot}, fee ${tx.meta?.fee} lamports paid by ${feePayer} (${whose}), err ${JSON.stringify(tx.meta?.err ?? null)}`);
  for (const [label, owner] of [["buyer", who.buyer], ["merchant", who.merchant]] as const) {
    const pre = tx.meta?.preTokenBalances?.find((b) => b.owner === owner)?.uiTokenAmount.uiAmountString ?? "0";
    const post = tx.meta?.postTokenBalances?.find((b) => b.owner === owner)?.uiTokenAmount.uiAmountString ?? "0";
    console.log(`     ${label.padEnd(8)} token balance ${pre} -> ${post}`);
  }
}

/** The facilitator's record of the payment: the same payment verified again is ALREADY_SETTLED. */
async function printRecorded(header: string | undefined): Promise<void> {
  if (!header) return;
  const payload = decodePaymentSignatureHeader(header);
  const again = await new HTTPFacilitatorClient({ url: FACILITATOR }).verify(payload, payload.accepted);
  console.log(`   facilitator POST /verify of the same payment now: ${JSON.stringify(again)}`);
}

function printAgents(agents: readonly AgentItem[]): void {
  const rows = agents.map((a) => [
    short(a.nftMint),
    new URL(a.metadataUri).hostname,
    a.categories.join(","),
    `${a.reputation.verifiedCount} / ${a.reputation.verifiedAvgScore.toFixed(1)}`,
    `${a.reputation.unverifiedCount} / ${a.reputation.unverifiedAvgScore.toFixed(1)}`,
    a.active ? "yes" : "no",
  ]);
  const header = ["agent", "metadata host", "categories", "verified n/avg", "unverified", "active"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  for (const row of [header, ...rows]) console.log(`   ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()}`);
}

async function usdcOf(owner: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value } = await rpc.getAccountInfo(ata, { encoding: "base64" }).send();
  if (!value) return 0n;
  return BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount);
}

async function cheat(method: string, params: unknown[]): Promise<void> {
  const response = await fetch(LEDGER, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await response.json()) as { error?: { message: string } };
  if (body.error) throw new DemoError(`${method} refused (${body.error.message}): the demo funds its buyer with the embedded ledger's cheat codes; run \`npm start\` without SOLANA_RPC_URL`);
}

async function getJson<T>(base: string, path: string): Promise<T> {
  const response = await fetch(`${base}${path}`);
  if (!response.ok) throw new DemoError(`GET ${base}${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

function reasonOf(error: Error): string {
  const code = (error as Error & { code?: unknown }).code;
  if (error.name === "TimeoutError") return "no answer within 5 s";
  return typeof code === "string" && code !== "" ? code : error.message;
}

const format = (units: bigint): string => `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`.replace(/(\.\d\d)0+$/, "$1").replace(/(\.\d*?[1-9])0+$/, "$1");
const short = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;

function trimSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`demo failed: ${error instanceof DemoError || error instanceof RegistrationDemoError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
