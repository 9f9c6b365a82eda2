/**
 * Benchmark (not a test): starts the facilitator's /verify on the embedded ledger in a child
 * process, fires distinct valid payments at it for a fixed time with simulation off and on,
 * and prints req/s, p50/p99 latency, the server's peak RSS and its CPU time per request (all
 * threads, and the event-loop thread alone), which stays meaningful on a busy shared machine.
 *
 *   npx bun bench/verify.ts [--seconds 10] [--connections 32] [--pool 4000] [--bun-load]
 *
 * The load comes from another process (wrk when installed, else a Bun child) so the server is
 * measured, not the load generator competing with it on the same event loop.
 *
 * Targets (2-core machine): simulation off >= 10,000 req/s with p99 < 10 ms.
 */
import { pipelineDeps, withVerify } from "../fixtures/verify-deps.ts";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { Elysia } from "elysia";
import { silentLogger } from "../src/application/ports/logger.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../src/domain/networks.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../src/domain/verification/verification-policy.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { createVerificationCaches } from "../src/application/payment/verification-caches.ts";
import { facilitatorVerifyRoutes } from "../src/http/facilitator/verify-routes.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../src/infrastructure/ledger/local-ledger.ts";
import { runLoad, wrkAvailable } from "./verify-load.ts";
import { buildPaymentBodies, format, latestBlockhash, measureCpu, peakRssMiB, readReady } from "./verify-support.ts";

const USDC = DEVNET_USDC_MINT as Address;

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

type Setup = Readonly<{ feePayer: Address; payTo: Address; payers: readonly Address[] }>;

/** Child: the facilitator on an embedded ledger, funded for the parent's payers. */
async function serve(setup: Setup, simulate: boolean): Promise<void> {
  const ledger = createLocalLedger();
  await ledger.airdrop(setup.feePayer, 10_000_000_000n);
  await ledger.setTokenAccount(setup.payTo, USDC, { amount: 0n });
  for (const payer of setup.payers) await ledger.setTokenAccount(payer, USDC, { amount: 1_000_000_000_000n });
  const rpc = serveLocalLedgerRpc(ledger, { port: 0 });
  const app = new Elysia().use(errorLayer(silentLogger)).use(
    facilitatorVerifyRoutes(withVerify(pipelineDeps(ledger, [setup.feePayer], { simulate }))),
  );
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  console.log(`READY ${JSON.stringify({ url: `http://127.0.0.1:${server.port}/verify`, rpcUrl: rpc.url })}`);
}

async function main(): Promise<void> {
  if (process.argv.includes("--serve")) {
    await serve(JSON.parse(process.env["BENCH_SETUP"] ?? "{}") as Setup, process.env["VERIFY_SIMULATE"] !== "false");
    return;
  }
  const seconds = flag("seconds", 10);
  const connections = flag("connections", 32);
  const poolSize = flag("pool", 4000);
  const [feePayer, payTo, ...payers] = await Promise.all(Array.from({ length: 10 }, () => generateKeyPairSigner()));
  if (!feePayer || !payTo) throw new Error("key generation failed");
  const setup: Setup = { feePayer: feePayer.address, payTo: payTo.address, payers: payers.map((p) => p.address) };
  const generator = process.argv.includes("--bun-load") ? "bun" : "auto";
  console.log(
    `verify benchmark: ${seconds}s per phase, ${connections} keep-alive connections, ${poolSize} distinct payments, ` +
      `load from ${generator === "auto" && wrkAvailable() ? "wrk" : "a Bun child process"} (separate process)`,
  );

  for (const simulate of [false, true]) {
    const child = Bun.spawn([process.execPath, import.meta.path, "--serve"], {
      env: { ...process.env, BENCH_SETUP: JSON.stringify(setup), VERIFY_SIMULATE: String(simulate) },
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      const ready = await readReady(child.stdout);
      const blockhash = await latestBlockhash(ready["rpcUrl"] ?? "");
      const bodies = await buildPaymentBodies({
        count: poolSize, payers, feePayer: feePayer.address, payTo: payTo.address, mint: USDC, network: SOLANA_DEVNET, amount: 1_000n, blockhash,
      });
      const url = ready["url"] ?? "";
      await runLoad({ url, bodies: bodies.slice(0, 500), seconds: 2, connections, generator }); // warm-up (JIT)
      const cpu = measureCpu(child.pid);
      const result = await runLoad({ url, bodies, seconds, connections, generator });
      console.log(format(`simulation ${simulate ? "on (embedded)" : "off"}`, result, peakRssMiB(child.pid), cpu(result.requests)));
    } finally {
      child.kill();
      await child.exited;
    }
  }
}

await main();
