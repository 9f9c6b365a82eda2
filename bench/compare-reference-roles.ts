/**
 * The three server processes of `bench/compare-reference.ts`, one role per child process so that
 * none shares an event loop with another or with the load generator:
 *
 * - `ledger`: the embedded ledger (litesvm) served over Solana JSON-RPC, funded for the run;
 * - `ours`: this facilitator's /verify over that JSON-RPC (`createRpcLedger`), simulation on;
 * - `reference`: the official facilitator (`@x402/core` x402Facilitator with `@x402/svm`'s exact
 *   scheme, a kit signer for its fee payer) over the same JSON-RPC, served with Bun.serve.
 *
 * Each prints one `READY {json}` line on stdout and serves until killed.
 */
import { pipelineDeps, withVerify } from "../fixtures/verify-deps.ts";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator";
import { createKeyPairSignerFromPrivateKeyBytes, type Address } from "@solana/kit";
import { Elysia } from "elysia";
import { silentLogger } from "../src/application/ports/logger.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../src/domain/networks.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../src/domain/verification/verification-policy.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { createVerificationCaches } from "../src/application/payment/verification-caches.ts";
import { facilitatorVerifyRoutes } from "../src/http/facilitator/verify-routes.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../src/infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../src/infrastructure/ledger/rpc-ledger.ts";
import type { Ledger } from "../src/application/ports/ledger.ts";

export const USDC = DEVNET_USDC_MINT as Address;

/** Public setup shared by the parent and every role (addresses only). */
export type CompareSetup = Readonly<{ feePayer: Address; payTo: Address; payers: readonly Address[]; rpcUrl?: string }>;

export type Role = "ledger" | "ours" | "reference";

function ready(fields: Record<string, string>): void {
  console.log(`READY ${JSON.stringify(fields)}`);
}

async function serveLedger(setup: CompareSetup): Promise<void> {
  const ledger = createLocalLedger();
  await ledger.airdrop(setup.feePayer, 100_000_000_000n);
  await ledger.setTokenAccount(setup.payTo, USDC, { amount: 0n });
  for (const payer of setup.payers) await ledger.setTokenAccount(payer, USDC, { amount: 1_000_000_000_000n });
  const rpc = serveLocalLedgerRpc(ledger, { port: 0 });
  ready({ url: rpc.url });
}

/** Counts the ledger calls our /verify makes, by method (read by the parent through GET /bench-calls). */
function countedLedger(ledger: Ledger, calls: Map<string, number>): Ledger {
  // A copy, not a Proxy: the ledger object is frozen, and a Proxy may not change a frozen property.
  const counted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(ledger)) {
    counted[name] = typeof value !== "function" ? value : (...args: unknown[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return (value as (...a: unknown[]) => unknown).apply(ledger, args);
    };
  }
  return counted as Ledger;
}

/** Counts our server's HTTP requests to the ledger as "HTTP requests" (a batch of calls is one). */
function countHttpRequests(calls: Map<string, number>): void {
  const send = globalThis.fetch;
  globalThis.fetch = Object.assign((...args: Parameters<typeof fetch>) => {
    calls.set("HTTP requests", (calls.get("HTTP requests") ?? 0) + 1);
    return send(...args);
  }, send);
}

function serveOurs(setup: CompareSetup, rpcUrl: string): void {
  const calls = new Map<string, number>();
  countHttpRequests(calls);
  const ledger = countedLedger(createRpcLedger({ url: rpcUrl }), calls);
  const app = new Elysia().use(errorLayer(silentLogger)).use(
    facilitatorVerifyRoutes(withVerify(pipelineDeps(ledger, [setup.feePayer]))),
  ).get("/bench-calls", () => Object.fromEntries(calls));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  ready({ url: `http://127.0.0.1:${server.port}/verify` });
}

/** The official facilitator as its README builds it, behind the same POST /verify body. */
async function serveReference(feePayerSeed: Uint8Array, rpcUrl: string): Promise<void> {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(feePayerSeed);
  const facilitator = new x402Facilitator();
  registerExactSvmScheme(facilitator, {
    signer: toFacilitatorSvmSigner(signer, { defaultRpcUrl: rpcUrl }),
    networks: SOLANA_DEVNET,
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST" || new URL(request.url).pathname !== "/verify") return new Response("not found", { status: 404 });
      const body = (await request.json()) as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
      return Response.json(await facilitator.verify(body.paymentPayload, body.paymentRequirements));
    },
  });
  ready({ url: `http://127.0.0.1:${server.port}/verify` });
}

/** Entry point of a role child: setup and secrets arrive in the environment, never on argv. */
export async function runRole(role: Role, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  // A clean exit on the parent's kill, so `--cpu-prof` and friends can write their output.
  process.on("SIGTERM", () => process.exit(0));
  const setup = JSON.parse(env["COMPARE_SETUP"] ?? "{}") as CompareSetup;
  const rpcUrl = setup.rpcUrl ?? "";
  if (role === "ledger") return serveLedger(setup);
  if (role === "ours") return serveOurs(setup, rpcUrl);
  const seedHex = env["COMPARE_FEE_PAYER_SEED"] ?? "";
  const seed = Uint8Array.from(seedHex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  return serveReference(seed, rpcUrl);
}
