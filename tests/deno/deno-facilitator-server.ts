/**
 * Runs under Deno (not Bun): serves the facilitator app's fetch handler with `Deno.serve`.
 * Domain, application and HTTP code are the production modules; the ledger is the JSON-RPC
 * adapter pointed at the embedded ledger the Bun test serves; the store is PGlite in memory.
 * Prints one JSON line `{port}` when listening.
 */
import type { Address } from "@solana/kit";
import { systemClock } from "../../src/application/ports/clock.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { createSignerPool } from "../../src/application/signer-pool.ts";
import { pingProbe } from "../../src/application/health.ts";
import { DEVNET_USDC_MINT, USDC_DECIMALS } from "../../src/domain/networks.ts";
import { createVerificationPolicy } from "../../src/domain/verification/verification-policy.ts";
import { createFacilitatorApp } from "../../src/http/facilitator-app.ts";
import { createPrometheusMetrics } from "../../src/infrastructure/metrics/prometheus-metrics.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { createLocalSigner } from "../../src/infrastructure/signers/local-signer.ts";
import { openStore } from "../../src/infrastructure/store/index.ts";
import { createVerificationCaches } from "../../src/application/payment/verification-caches.ts";
import type { PaymentDeps } from "../../src/application/payment/payment-deps.ts";
import { verifyPayment } from "../../src/application/payment/verify.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../src/domain/registry/pdas.ts";

declare const Deno: {
  args: string[];
  serve(options: { port: number; hostname: string; onListen(addr: { port: number }): void }, handler: (r: Request) => Response | Promise<Response>): unknown;
};

const [rpcUrl] = Deno.args;
if (!rpcUrl) throw new Error("usage: deno-facilitator-server.ts <rpc-url>");
const ledger = createRpcLedger({ url: rpcUrl });
const store = await openStore({ inMemory: true });
const signer = await createLocalSigner(crypto.getRandomValues(new Uint8Array(32)), "deno smoke key");
const pool = createSignerPool([signer], { clock: systemClock });

const paymentDeps: PaymentDeps = {
  ledger,
  feePayers: () => pool.addresses,
  policy: createVerificationPolicy(),
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  assets: [DEVNET_USDC_MINT as Address],
  assetDecimals: USDC_DECIMALS,
  protocolFee: null,
  clock: systemClock,
  programId: DEFAULT_REGISTRY_PROGRAM_ID as Address,
  simulate: true,
  ...createVerificationCaches(ledger),
};
const app = createFacilitatorApp({
  ...paymentDeps,
  verify: (request) => verifyPayment(request, paymentDeps),
  settlement: null,
  logger: silentLogger,
  version: "deno-smoke",
  metrics: createPrometheusMetrics(),
  health: {
    ledger: pingProbe(() => ledger.ping()),
    store: pingProbe(() => store.ping()),
    signer: async () => ({ status: "ok" }),
  },
});

Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port, runtime: "deno" })) }, (request) =>
  app.fetch(request),
);
