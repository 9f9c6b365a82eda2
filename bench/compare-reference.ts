/**
 * Benchmark (not a test): this facilitator's /verify against the official x402 facilitator
 * (`@x402/core` + `@x402/svm`), both with simulation on against the SAME JSON-RPC ledger (the
 * embedded litesvm ledger served by `serveLedgerRpc`), with the same load in the same run:
 * payments built by the official client (`@x402/core` x402Client + `@x402/svm` ExactSvmScheme),
 * the same payers, payee and fee payer for both. It also measures the ledger's own
 * `simulateTransaction` ceiling over JSON-RPC with the same transactions, since that is the
 * physical limit of this configuration.
 *
 *   npx bun bench/compare-reference.ts [--seconds 10] [--connections 32] [--pool 2000] [--rounds 1] [--bun-load]
 *
 * BENCH_PROFILE_DIR=<dir> makes every child (ledger, reference, ours) write a CPU profile there when it stops.
 *
 * Every server is its own process; the load comes from wrk (or a Bun child) in another one. Load
 * goes to 127.0.0.1 only and each phase is bounded by --seconds. Each phase builds a fresh pool of
 * payments, so no blockhash expires (150 slots, 60 s) during the phase. On a shared machine, use
 * --rounds 3: each round measures all three back to back and the median ratio is printed.
 * Target (2-core machine): ours >= 2x the reference, or within 15% of the ledger's ceiling.
 */
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from "@solana/kit";
import { SOLANA_DEVNET } from "../src/domain/networks.ts";
import { runRole, USDC, type CompareSetup, type Role } from "./compare-reference-roles.ts";
import { runLoad, wrkAvailable, type LoadResult } from "./verify-load.ts";
import { cpuMs, peakRssMiB, readReady } from "./verify-support.ts";

const PAYERS = 8;

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function randomSeed(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

type Child = Readonly<{ process: Bun.Subprocess<"ignore", "pipe", "inherit">; ready: Record<string, string> }>;

async function startRole(role: Role, env: Record<string, string>): Promise<Child> {
  // BENCH_PROFILE_DIR: each child writes a CPU profile there when it stops (SIGTERM exits cleanly).
  const profile = process.env["BENCH_PROFILE_DIR"];
  const flags = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`, `--cpu-prof-name=verify-${role}-${Date.now()}.cpuprofile`] : [];
  const child = Bun.spawn([process.execPath, ...flags, import.meta.path, "--role", role], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  return { process: child, ready: await readReady(child.stdout) };
}

async function stop(child: Child): Promise<void> {
  child.process.kill();
  await child.process.exited;
}

/** Payments from the official client, in the body shape @x402/core's HTTP facilitator client posts. */
async function buildOfficialBodies(
  count: number,
  payers: readonly KeyPairSigner[],
  requirements: PaymentRequirements,
  rpcUrl: string,
): Promise<{ verify: string[]; simulate: string[] }> {
  const clients = payers.map((payer) => new x402Client().register("solana:*", new ExactSvmScheme(payer, { rpcUrl })));
  const paymentRequired = {
    x402Version: 2,
    resource: { url: "https://bench.example/resource", description: "benchmark", mimeType: "application/json" },
    accepts: [requirements],
  };
  const verify: string[] = [];
  const simulate: string[] = [];
  for (let i = 0; i < count; i += clients.length) {
    // One payment per payer at a time: the official client fetches a blockhash per payment.
    const batch = await Promise.all(clients.map((client) => client.createPaymentPayload(paymentRequired)));
    for (const paymentPayload of batch) {
      verify.push(JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements }));
      simulate.push(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "simulateTransaction",
          params: [paymentPayload.payload["transaction"], { encoding: "base64", sigVerify: false, commitment: "confirmed" }],
        }),
      );
    }
  }
  return { verify: verify.slice(0, count), simulate: simulate.slice(0, count) };
}

/** Our server's ledger calls so far, by method (its GET /bench-calls); nothing for the other servers. */
async function ledgerCalls(verifyUrl: string | null): Promise<Record<string, number>> {
  if (verifyUrl === null) return {};
  const response = await fetch(verifyUrl.replace(/\/verify$/, "/bench-calls"));
  return (await response.json()) as Record<string, number>;
}

function rps(result: LoadResult): number {
  return result.requests / result.seconds;
}

function line(name: string, result: LoadResult, rss?: number): string {
  return `${name.padEnd(34)} ${rps(result).toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(2).padStart(6)} ms  p99 ${result.p99.toFixed(2).padStart(6)} ms` +
    `${rss === undefined ? "" : `  peak RSS ${rss.toFixed(0)} MiB`}  (${result.requests} requests, ${result.failures} bad)`;
}

async function main(): Promise<void> {
  const seconds = flag("seconds", 10);
  const connections = flag("connections", 32);
  const poolSize = flag("pool", 2000);
  const roundCount = flag("rounds", 1);
  const generator = process.argv.includes("--bun-load") ? "bun" : "auto";

  const feePayerSeed = randomSeed();
  const feePayer = await createKeyPairSignerFromPrivateKeyBytes(feePayerSeed);
  const payTo = await createKeyPairSignerFromPrivateKeyBytes(randomSeed());
  const payers = await Promise.all(Array.from({ length: PAYERS }, () => createKeyPairSignerFromPrivateKeyBytes(randomSeed())));
  const setup: CompareSetup = { feePayer: feePayer.address, payTo: payTo.address, payers: payers.map((p) => p.address) };
  const requirements: PaymentRequirements = {
    scheme: "exact",
    network: SOLANA_DEVNET,
    asset: USDC,
    amount: "1000",
    payTo: payTo.address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  };
  console.log(
    `compare-reference: ${seconds}s per phase, ${connections} keep-alive connections, ${poolSize} payments per phase from the official client, ` +
      `load from ${generator === "auto" && wrkAvailable() ? "wrk" : "a Bun child process"}`,
  );

  const ledger = await startRole("ledger", { COMPARE_SETUP: JSON.stringify(setup) });
  const rpcUrl = ledger.ready["url"] ?? "";
  const withRpc = JSON.stringify({ ...setup, rpcUrl });
  const children: Child[] = [ledger];
  const rounds: Round[] = [];
  let ours: Child | undefined;
  try {
    const reference = await startRole("reference", { COMPARE_SETUP: withRpc, COMPARE_FEE_PAYER_SEED: hex(feePayerSeed) });
    children.push(reference);
    ours = await startRole("ours", { COMPARE_SETUP: withRpc });
    children.push(ours);
    const phase = async (name: string, url: string, pick: "verify" | "simulate", pid?: number): Promise<LoadResult> => {
      // A fresh pool per phase: the official client fetches a current blockhash for each payment.
      const bodies = await buildOfficialBodies(poolSize, payers, requirements, rpcUrl);
      const expect = pick === "simulate" ? { expect: '"err":null' } : {};
      await runLoad({ url, bodies: bodies[pick].slice(0, 300), seconds: 2, connections, generator, ...expect });
      const watched = pid === undefined ? [ledger.process.pid] : [pid, ledger.process.pid];
      const before = watched.map((p) => cpuMs(p));
      const callsBefore = await ledgerCalls(pid === ours?.process.pid ? url : null);
      const result = await runLoad({ url, bodies: bodies[pick], seconds, connections, generator, ...expect });
      const callsAfter = await ledgerCalls(pid === ours?.process.pid ? url : null);
      const perRequest = watched.map((p, i) => ((cpuMs(p) - (before[i] ?? 0)) * 1000) / Math.max(1, result.requests));
      const cpu = pid === undefined
        ? `ledger ${perRequest[0]?.toFixed(0)} µs`
        : `server ${perRequest[0]?.toFixed(0)} µs + ledger ${perRequest[1]?.toFixed(0)} µs`;
      console.log(`${line(name, result, pid === undefined ? undefined : peakRssMiB(pid))}  CPU/request: ${cpu}`);
      const perCall = Object.entries(callsAfter).map(([method, n]) => `${method} ${((n - (callsBefore[method] ?? 0)) / Math.max(1, result.requests)).toFixed(2)}`);
      if (perCall.length > 0) console.log(`  ledger RPC calls per request: ${perCall.join(", ")}`);
      return result;
    };
    for (let round = 1; round <= roundCount; round++) {
      if (roundCount > 1) console.log(`round ${round}/${roundCount}`);
      const ceiling = await phase("ledger simulateTransaction ceiling", rpcUrl, "simulate");
      const official = await phase("reference (@x402/svm) /verify", reference.ready["url"] ?? "", "verify", reference.process.pid);
      const ourResult = await phase("ours /verify", ours.ready["url"] ?? "", "verify", ours.process.pid);
      rounds.push({ ceiling: rps(ceiling), reference: rps(official), ours: rps(ourResult) });
      console.log(summary(rounds[rounds.length - 1] as Round));
    }
  } finally {
    for (const child of children.reverse()) await stop(child);
  }
  if (rounds.length > 1) {
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    console.log(
      `median over ${rounds.length} rounds: ours/reference ${median(rounds.map((r) => r.ours / r.reference)).toFixed(2)}x, ` +
        `ours/ceiling ${(100 * median(rounds.map((r) => r.ours / r.ceiling))).toFixed(0)}%`,
    );
  }
}

type Round = Readonly<{ ceiling: number; reference: number; ours: number }>;

function summary(round: Round): string {
  const ratio = round.ours / round.reference;
  const ofCeiling = round.ours / round.ceiling;
  const met = ratio >= 2 || ofCeiling >= 0.85;
  return `ours / reference: ${ratio.toFixed(2)}x   ours / ledger ceiling: ${(100 * ofCeiling).toFixed(0)}%   ` +
    `target (>= 2x reference or within 15% of the ceiling): ${met ? "met" : "NOT met"}`;
}

const roleIndex = process.argv.indexOf("--role");
if (roleIndex >= 0) {
  await runRole(process.argv[roleIndex + 1] as Role, process.env);
} else {
  await main();
}
