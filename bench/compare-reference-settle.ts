/**
 * Benchmark (not a test): this facilitator's /settle against the official x402 facilitator
 * (`@x402/core` x402Facilitator + `@x402/svm` exact scheme) in the same run, against the SAME
 * JSON-RPC ledger: the embedded ledger behind bench/settle-ledger.ts, in its own process.
 *
 *   npx bun bench/compare-reference-settle.ts [--n 2000] [--c 64] [--pool 10] [--rounds 1]
 *                                             [--confirm-ms 0] [--max-seconds 50]
 *
 * Processes: the ledger, the reference facilitator and ours (`buildService` with SOLANA_RPC_URL
 * = the ledger, DATABASE_URL = a fresh bench_settle_<random> database on TEST_POSTGRES_URL,
 * dropped at the end, FEE_PAYER_PRIVATE_KEY = a funded key) each in a child process; this one
 * only builds payments and drives the load (HTTP to 127.0.0.1, at most C in flight).
 *
 * Payments come from the official client (`x402Client` + `@x402/svm` ExactSvmScheme): the same
 * payers and payees for both, a fresh pool per phase (the client fetches a current blockhash per
 * payment, and a blockhash lives about 60 s), each facilitator's own fee payer in `extra`.
 * A phase stops dispatching after --max-seconds. After each phase every answer is checked on the
 * ledger: each returned signature is confirmed without error, the sends that reached the ledger
 * equal the successes, and each payee's token balance rose by exactly its payments.
 * With --rounds > 1 the order alternates and the median ratio is printed. Target (docs/performance.md):
 * ours >= 1.3x the reference's settlements/s, PostgreSQL durability and ledger checks included.
 * BENCH_PROFILE_DIR=<dir> makes both server children write a CPU profile there when they stop.
 */
import { x402Client } from "@x402/core/client";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import { type Address, type KeyPairSigner, createKeyPairSignerFromPrivateKeyBytes } from "@solana/kit";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../src/application/ports/logger.ts";
import { SOLANA_DEVNET } from "../src/domain/networks.ts";
import { parseServiceConfig } from "../src/infrastructure/config/service-config.ts";
import { buildService } from "../src/composition/service.ts";
import { USDC } from "./compare-reference-roles.ts";
import { type LedgerProcess, createBenchDatabase, percentile, rpcCall, startLedgerProcess } from "./settle-rig.ts";
import { cpuMs, peakRssMiB, readReady } from "./verify-support.ts";

const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const PAYERS = 8;
const PAYEES = 8;
const AMOUNT = 1000n;
const WARM_UP = 100;
/** Ours over the reference, in settlements/s (docs/performance.md). */
const TARGET_RATIO = 1.3;

function flag(name: string, fallback: number, allowZero = false): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && (value > 0 || (allowZero && value === 0)) ? value : fallback;
}

const randomSeed = () => crypto.getRandomValues(new Uint8Array(32));
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (h) => Number.parseInt(h, 16));

// ---------------------------------------------------------------- server roles (child processes)

function ready(fields: Record<string, string>): void {
  console.log(`READY ${JSON.stringify(fields)}`);
}

/** The official facilitator as its README builds it, behind POST /settle. */
async function serveReference(seed: Uint8Array, rpcUrl: string): Promise<void> {
  const facilitator = new x402Facilitator();
  registerExactSvmScheme(facilitator, {
    signer: toFacilitatorSvmSigner(await createKeyPairSignerFromPrivateKeyBytes(seed), { defaultRpcUrl: rpcUrl }),
    networks: SOLANA_DEVNET,
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST" || new URL(request.url).pathname !== "/settle") return new Response("not found", { status: 404 });
      const body = (await request.json()) as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
      return Response.json(await facilitator.settle(body.paymentPayload, body.paymentRequirements));
    },
  });
  process.on("SIGTERM", () => process.exit(0));
  ready({ url: `http://127.0.0.1:${server.port}/settle` });
}

/** Ours exactly as main.ts composes it, configured through the environment it is given. */
async function serveOurs(env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const parsed = parseServiceConfig(env);
  if (!parsed.ok) throw new Error(`configuration: ${parsed.errors.join("; ")}`);
  const service = await buildService(parsed.config, env, silentLogger);
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: service.facilitatorApp.fetch });
  process.on("SIGTERM", async () => {
    await server.stop();
    await service.close(5_000);
    process.exit(0);
  });
  ready({ url: `http://127.0.0.1:${server.port}/settle` });
}

type Child = Readonly<{ process: Bun.Subprocess<"ignore", "pipe", "inherit">; url: string }>;

async function startRole(role: "ours" | "reference", env: Record<string, string>): Promise<Child> {
  // BENCH_PROFILE_DIR: each server child writes a CPU profile there when it stops (SIGTERM exits cleanly).
  const profile = process.env["BENCH_PROFILE_DIR"];
  const flags = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`] : [];
  const child = Bun.spawn([process.execPath, ...flags, import.meta.path, "--role", role], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  return { process: child, url: (await readReady(child.stdout)).url ?? "" };
}

async function stopChild(child: Child): Promise<void> {
  child.process.kill();
  const exited = await Promise.race([child.process.exited, new Promise((resolve) => setTimeout(() => resolve(null), 8_000))]);
  if (exited === null) child.process.kill("SIGKILL");
}

// ---------------------------------------------------------------- payments and load

type Actors = Readonly<{ payers: readonly KeyPairSigner[]; payees: readonly Address[]; payeeAtas: readonly Address[] }>;

/** `count` distinct payments from the official client, payee i % PAYEES, fee payer `feePayer`. */
async function buildPool(count: number, actors: Actors, feePayer: Address, rpcUrl: string): Promise<string[]> {
  const clients = actors.payers.map((payer) => new x402Client().register("solana:*", new ExactSvmScheme(payer, { rpcUrl })));
  const required = actors.payees.map((payTo) => {
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: SOLANA_DEVNET,
      asset: USDC,
      amount: AMOUNT.toString(),
      payTo,
      maxTimeoutSeconds: 60,
      extra: { feePayer },
    };
    const paymentRequired = { x402Version: 2, resource: { url: "https://bench.example/r", description: "bench", mimeType: "application/json" }, accepts: [requirements] };
    return { requirements, paymentRequired };
  });
  const bodies: string[] = [];
  for (let start = 0; start < count; start += 64) {
    const batch = Array.from({ length: Math.min(64, count - start) }, async (_, k) => {
      const i = start + k;
      const { requirements, paymentRequired } = required[i % PAYEES] ?? fail("no payee");
      const paymentPayload = await (clients[i % PAYERS] ?? fail("no payer")).createPaymentPayload(paymentRequired);
      return JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements });
    });
    bodies.push(...(await Promise.all(batch)));
  }
  return bodies;
}

function fail(message: string): never {
  throw new Error(message);
}

type LoadOutcome = Readonly<{
  seconds: number;
  latenciesMs: readonly number[];
  /** Signature per payment index, null when the answer was not a success. */
  signatures: readonly (string | null)[];
  failures: readonly string[];
  unsent: number;
}>;

/** Posts every body once, at most `concurrency` in flight, dispatching until `deadline`. */
async function settleAll(url: string, bodies: readonly string[], concurrency: number, maxSeconds: number): Promise<LoadOutcome> {
  const latenciesMs: number[] = [];
  const signatures: (string | null)[] = bodies.map(() => null);
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  async function worker(): Promise<void> {
    while (next < bodies.length && performance.now() < deadline) {
      const index = next++;
      const t0 = performance.now();
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: bodies[index] ?? "",
          signal: AbortSignal.timeout(60_000),
        });
        const answer = (await response.json()) as { success?: boolean; transaction?: string; errorReason?: string; errorMessage?: string };
        if (response.status === 200 && answer.success === true && answer.transaction) signatures[index] = answer.transaction;
        else failures.push(`${response.status} ${answer.errorReason ?? ""} ${answer.errorMessage ?? ""}`.trim());
      } catch (error) {
        failures.push(String(error));
      }
      latenciesMs.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, latenciesMs: latenciesMs.sort((a, b) => a - b), signatures, failures, unsent: bodies.length - Math.min(next, bodies.length) };
}

// ---------------------------------------------------------------- landing checks on the ledger

async function tokenBalances(rpcUrl: string, atas: readonly Address[]): Promise<bigint[]> {
  return Promise.all(
    atas.map(async (ata) => BigInt(((await rpcCall(rpcUrl, "getTokenAccountBalance", [ata])) as { value: { amount: string } }).value.amount)),
  );
}

async function lamports(rpcUrl: string, address: Address): Promise<bigint> {
  return BigInt(((await rpcCall(rpcUrl, "getBalance", [address])) as { value: number }).value);
}

/** How many of `signatures` the ledger reports confirmed (or finalized) without error. */
async function confirmedCount(rpcUrl: string, signatures: readonly string[]): Promise<number> {
  let confirmed = 0;
  for (let i = 0; i < signatures.length; i += 256) {
    const chunk = signatures.slice(i, i + 256);
    const result = (await rpcCall(rpcUrl, "getSignatureStatuses", [chunk, { searchTransactionHistory: true }])) as {
      value: ({ err: unknown; confirmationStatus: string } | null)[];
    };
    confirmed += result.value.filter((s) => s !== null && s.err === null && s.confirmationStatus !== "processed").length;
  }
  return confirmed;
}

// ---------------------------------------------------------------- where the CPU went (Linux /proc)

/** User and system jiffies of each thread of `pid`, with its name (docs/performance.md, fourth round: where the CPU goes by thread). */
function threadTicks(pid: number): Map<number, [number, number, string]> {
  const out = new Map<number, [number, number, string]>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
      const f = text.slice(text.lastIndexOf(") ") + 2).split(" ");
      out.set(Number(tid), [Number(f[11]), Number(f[12]), name]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Each thread's CPU over a phase per settlement, busiest first; the JavaScript thread is the one named `(main)`. */
function threadShares(pid: number, before: Map<number, [number, number, string]>, after: Map<number, [number, number, string]>, settled: number): string {
  const per = (ticks: number) => (ticks * 10_000) / Math.max(1, settled); // a jiffy is 10 ms
  return [...after]
    .map(([tid, [user, system, name]]) => {
      const [userBefore, systemBefore] = before.get(tid) ?? [0, 0];
      return { name: tid === pid ? `${name}(main)` : name, user: per(user - userBefore), system: per(system - systemBefore) };
    })
    .filter((t) => t.user + t.system > 0)
    .sort((a, b) => b.user + b.system - a.user - a.system)
    .map((t) => `${t.name} u${t.user.toFixed(0)} s${t.system.toFixed(0)}`)
    .join(", ");
}

/** Busy and total jiffies of the whole machine. */
function machineTicks(): Readonly<{ busy: number; total: number }> {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU ms of every process named `postgres` (the server and its backends; others' queries too on a shared machine). */
function postgresCpuMs(): number {
  let sum = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") sum += cpuMs(Number(entry)) || 0;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return sum;
}

const CALLS = ["simulateTransaction", "sendTransaction", "getSignatureStatuses", "getBlockHeight", "isBlockhashValid", "getLatestBlockhash", "getAccountInfo", "getMultipleAccounts"];

// ---------------------------------------------------------------- one measured phase

type Facilitator = Readonly<{ name: string; child: Child; feePayer: Address }>;
type PhaseResult = Readonly<{ rate: number; p50: number; p99: number; landed: boolean }>;

async function runPhase(f: Facilitator, ledger: LedgerProcess, actors: Actors, options: Readonly<{ n: number; c: number; maxSeconds: number }>): Promise<PhaseResult> {
  // Warm-up outside the measurement: JIT, keep-alive connections, the database pool.
  const warm = await settleAll(f.child.url, await buildPool(WARM_UP, actors, f.feePayer, ledger.url), options.c, options.maxSeconds);
  if (warm.failures.length > 0) console.log(`  ${f.name} warm-up: ${warm.failures.length} failures, first: ${warm.failures[0]}`);
  const bodies = await buildPool(options.n, actors, f.feePayer, ledger.url);

  const payeesBefore = await tokenBalances(ledger.url, actors.payeeAtas);
  const feePayerBefore = await lamports(ledger.url, f.feePayer);
  const statsBefore = await ledger.stats();
  const cpuBefore = [cpuMs(f.child.process.pid), cpuMs(ledger.pid), postgresCpuMs(), cpuMs(process.pid)];
  const threadsBefore = threadTicks(f.child.process.pid);
  const machineBefore = machineTicks();
  const outcome = await settleAll(f.child.url, bodies, options.c, options.maxSeconds);
  const machineAfter = machineTicks();
  const threadsAfter = threadTicks(f.child.process.pid);
  const cpu = [cpuMs(f.child.process.pid), cpuMs(ledger.pid), postgresCpuMs(), cpuMs(process.pid)].map((after, i) => after - (cpuBefore[i] ?? 0));
  const statsAfter = await ledger.stats();

  const succeeded = outcome.signatures.filter((s): s is string => s !== null);
  const rate = succeeded.length / outcome.seconds;
  const p50 = percentile(outcome.latenciesMs, 50);
  const p99 = percentile(outcome.latenciesMs, 99);
  console.log(
    `${f.name.padEnd(28)} ${rate.toFixed(0).padStart(5)} settlements/s  p50 ${p50.toFixed(1).padStart(7)} ms  p99 ${p99.toFixed(1).padStart(7)} ms  ` +
      `(${succeeded.length}/${options.n} in ${outcome.seconds.toFixed(2)} s, ${outcome.failures.length} failed, ${outcome.unsent} not sent; ` +
      `CPU/settlement: server ${((cpu[0] ?? 0) * 1000 / Math.max(1, succeeded.length)).toFixed(0)} µs, ledger ${((cpu[1] ?? 0) * 1000 / Math.max(1, succeeded.length)).toFixed(0)} µs; ` +
      `peak RSS ${peakRssMiB(f.child.process.pid).toFixed(0)} MiB)`,
  );
  console.log(`  server threads, µs per settlement (u user, s system): ${threadShares(f.child.process.pid, threadsBefore, threadsAfter, succeeded.length)}`);
  if (outcome.failures.length > 0) console.log(`  first failure: ${outcome.failures[0]}`);
  const per = (ms: number | undefined) => `${(((ms ?? 0) * 1000) / Math.max(1, succeeded.length)).toFixed(0)} µs`;
  const busy = (100 * (machineAfter.busy - machineBefore.busy)) / Math.max(1, machineAfter.total - machineBefore.total);
  const calls = CALLS.map((m) => `${m} ${(((statsAfter.calls[m] ?? 0) - (statsBefore.calls[m] ?? 0)) / Math.max(1, succeeded.length)).toFixed(2)}`);
  console.log(
    `  also per settlement: postgres CPU ${per(cpu[2])}, load generator CPU ${per(cpu[3])}; machine busy ${busy.toFixed(0)}% of ${availableParallelism()} cores; ` +
      `ledger RPC calls per settlement: ${calls.join(", ")}`,
  );

  // Every success must be on the ledger: confirmed signatures, one send each, payee balances.
  const payeesAfter = await tokenBalances(ledger.url, actors.payeeAtas);
  const expected = actors.payeeAtas.map((_, j) => BigInt(outcome.signatures.filter((s, i) => s !== null && i % PAYEES === j).length) * AMOUNT);
  const balancesRight = payeesAfter.every((after, j) => after - (payeesBefore[j] ?? 0n) === expected[j]);
  const distinct = new Set(succeeded).size;
  const confirmed = await confirmedCount(ledger.url, succeeded);
  const sends = statsAfter.sends - statsBefore.sends;
  const feePerSettlement = Number(feePayerBefore - (await lamports(ledger.url, f.feePayer))) / Math.max(1, succeeded.length);
  const landed = balancesRight && distinct === succeeded.length && confirmed === succeeded.length && sends === succeeded.length;
  console.log(
    `  on the ledger: ${confirmed}/${succeeded.length} signatures confirmed without error, ${distinct} distinct, ${sends} sends reached the ledger, ` +
      `payee balances ${balancesRight ? "rose by exactly the settled amounts" : "DO NOT MATCH"} ` +
      `(+${payeesAfter.reduce((sum, a, j) => sum + a - (payeesBefore[j] ?? 0n), 0n)} units), fee payer spent ${feePerSettlement.toFixed(0)} lamports/settlement: ` +
      `${landed ? "every settlement landed" : "NOT every settlement landed"}`,
  );
  return { rate, p50, p99, landed };
}

// ---------------------------------------------------------------- orchestration

async function fund(rpcUrl: string, feePayers: readonly Address[], payers: readonly KeyPairSigner[], payees: readonly Address[]): Promise<Address[]> {
  for (const address of feePayers) await rpcCall(rpcUrl, "requestAirdrop", [address, 1_000_000_000_000]);
  for (const payer of payers) await rpcCall(rpcUrl, "surfnet_setTokenAccount", [payer.address, USDC, { amount: 1_000_000_000_000 }]);
  const atas: Address[] = [];
  for (const payee of payees) {
    await rpcCall(rpcUrl, "surfnet_setTokenAccount", [payee, USDC, { amount: 0 }]);
    const [ata] = await findAssociatedTokenPda({ owner: payee, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    atas.push(ata);
  }
  return atas;
}

async function main(): Promise<void> {
  const options = { n: flag("n", 2000), c: flag("c", 64), maxSeconds: flag("max-seconds", 50) };
  const rounds = flag("rounds", 1);
  const pool = flag("pool", 10);
  const confirmMs = flag("confirm-ms", 0, true);
  const load = loadavg().map((l) => l.toFixed(2)).join(" ");
  console.log(
    `compare-reference-settle: ${options.n} distinct payments per phase at concurrency ${options.c}, official client, ${PAYERS} payers, ${PAYEES} payees; ` +
      `ledger confirms after ${confirmMs} ms; our pool ${pool}; load average ${load}`,
  );

  const referenceSeed = randomSeed();
  const oursSeed = randomSeed();
  const referenceFeePayer = (await createKeyPairSignerFromPrivateKeyBytes(referenceSeed)).address;
  const oursFeePayer = (await createKeyPairSignerFromPrivateKeyBytes(oursSeed)).address;
  const payers = await Promise.all(Array.from({ length: PAYERS }, () => createKeyPairSignerFromPrivateKeyBytes(randomSeed())));
  const payees = await Promise.all(Array.from({ length: PAYEES }, async () => (await createKeyPairSignerFromPrivateKeyBytes(randomSeed())).address));

  const database = await createBenchDatabase(ADMIN_URL);
  const dataDir = mkdtempSync(join(tmpdir(), "compare-settle-"));
  const ledger = await startLedgerProcess(confirmMs);
  const children: Child[] = [];
  const results: { reference: PhaseResult; ours: PhaseResult }[] = [];
  try {
    const payeeAtas = await fund(ledger.url, [referenceFeePayer, oursFeePayer], payers, payees);
    const actors: Actors = { payers, payees, payeeAtas };
    const referenceChild = await startRole("reference", { COMPARE_FEE_PAYER_SEED: hex(referenceSeed), COMPARE_RPC_URL: ledger.url });
    children.push(referenceChild);
    const oursChild = await startRole("ours", {
      SOLANA_RPC_URL: ledger.url,
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: String(pool),
      FEE_PAYER_PRIVATE_KEY: JSON.stringify(Array.from(oursSeed)),
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
    });
    children.push(oursChild);
    const reference: Facilitator = { name: "reference (@x402/svm) /settle", child: referenceChild, feePayer: referenceFeePayer };
    const ours: Facilitator = { name: "ours /settle", child: oursChild, feePayer: oursFeePayer };
    for (let round = 1; round <= rounds; round++) {
      if (rounds > 1) console.log(`round ${round}/${rounds} (load average ${loadavg()[0]?.toFixed(2)})`);
      // Alternate the order so neither always runs on the warmer (or more contended) machine.
      const order = round % 2 === 1 ? [reference, ours] : [ours, reference];
      const measured = new Map<Facilitator, PhaseResult>();
      for (const f of order) measured.set(f, await runPhase(f, ledger, actors, options));
      const r = measured.get(reference) ?? fail("no reference result");
      const o = measured.get(ours) ?? fail("no result for ours");
      results.push({ reference: r, ours: o });
      console.log(
        `ours / reference: ${(o.rate / r.rate).toFixed(2)}x settlements/s, p50 ${(r.p50 / o.p50).toFixed(2)}x lower, p99 ${(r.p99 / o.p99).toFixed(2)}x lower; ` +
          `target (>= ${TARGET_RATIO}x): ${o.rate / r.rate >= TARGET_RATIO ? "met" : "NOT met"}; every settlement of both landed: ${r.landed && o.landed ? "yes" : "NO"}`,
      );
    }
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await ledger.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (results.length > 1) {
    const ratios = results.map((r) => r.ours.rate / r.reference.rate).sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
    console.log(`median over ${results.length} rounds: ours / reference ${median.toFixed(2)}x; target (>= ${TARGET_RATIO}x): ${median >= TARGET_RATIO ? "met" : "NOT met"}`);
  }
  console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  process.exit(results.every((r) => r.reference.landed && r.ours.landed) ? 0 : 1);
}

const roleIndex = process.argv.indexOf("--role");
if (roleIndex < 0) await main();
else if (process.argv[roleIndex + 1] === "reference") await serveReference(fromHex(process.env["COMPARE_FEE_PAYER_SEED"] ?? ""), process.env["COMPARE_RPC_URL"] ?? "");
else await serveOurs(process.env);
