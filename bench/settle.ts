/**
 * Benchmark (not a test): settlement throughput and latency-bound concurrency.
 *
 *   npx bun bench/settle.ts [--n 2000] [--c 64] [--latency-n 1000] [--confirm-ms 500] [--pool 10]
 *                           [--runs throughput,throughput-stub,latency,latency-stub]
 *
 * 1. Throughput: N distinct payments settled at concurrency C through the facilitator app
 *    (`app.handle`, no socket) on a fresh PostgreSQL database, with the embedded ledger served
 *    over JSON-RPC. Prints settlements/s, p50/p99 and store statements per settlement (each one
 *    round trip, shared by the settlements of its batch; the fee budget's counters included).
 * 2. Latency-bound: the ledger's status reads say "not found" until `confirm-ms` after each send
 *    (a real cluster confirms in 0.4-1 s); `latency-n` distinct settlements are started at once.
 *    Target: all finish in < 2 s, every record settled, memory bounded (peak RSS printed).
 *    Then once more with the ledger child acknowledging sends without executing them, to show
 *    the facilitator's own ceiling apart from the embedded ledger's execution cost.
 *
 * The database is created as bench_settle_<random> on TEST_POSTGRES_URL (default the local
 * trust-auth server) and dropped at the end. The ledger runs in a child process (as a cluster
 * would be remote); the app and the load generator share this one, so on a 2-core machine the
 * figures are a lower bound for a facilitator with its own cores.
 */
import { type Payment, fundedPayment } from "../fixtures/payments.ts";
import { type BenchRig, type LedgerStats, createBenchDatabase, percentile, sampleRss, startBenchRig, startLedgerProcess } from "./settle-rig.ts";

const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** 1,000 settlements at once with 500 ms confirmations (docs/performance.md). */
const LATENCY_TARGET_SECONDS = 2;

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

type RunResult = Readonly<{ seconds: number; latenciesMs: readonly number[]; failures: readonly string[] }>;

async function preparePayments(rig: BenchRig, count: number): Promise<Payment[]> {
  const payments: Payment[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = Math.min(100, count - i);
    payments.push(...(await Promise.all(Array.from({ length: batch }, () => fundedPayment(rig.funding, rig.feePayer)))));
  }
  return payments;
}

async function settleOne(rig: BenchRig, payment: Payment): Promise<Readonly<{ ms: number; failure: string | null }>> {
  const started = performance.now();
  const response = await rig.app.handle(
    new Request("http://facilitator.bench/settle", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payment.body) }),
  );
  const body = (await response.json()) as { success?: boolean; errorReason?: string; errorMessage?: string };
  const ms = performance.now() - started;
  return { ms, failure: body.success === true ? null : `${response.status} ${body.errorReason ?? ""} ${body.errorMessage ?? ""}`.trim() };
}

/** Runs every payment with at most `concurrency` in flight. */
async function run(rig: BenchRig, payments: readonly Payment[], concurrency: number): Promise<RunResult> {
  const latenciesMs: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  async function worker(): Promise<void> {
    while (next < payments.length) {
      const payment = payments[next++];
      if (!payment) return;
      const outcome = await settleOne(rig, payment);
      latenciesMs.push(outcome.ms);
      if (outcome.failure) failures.push(outcome.failure);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, payments.length) }, worker));
  return { seconds: (performance.now() - started) / 1000, latenciesMs: latenciesMs.sort((a, b) => a - b), failures };
}

function report(label: string, result: RunResult, queries: number, count: number): void {
  const rate = count / result.seconds;
  console.log(
    `${label}: ${count} settlements in ${result.seconds.toFixed(2)} s = ${rate.toFixed(0)} settlements/s; ` +
      `p50 ${percentile(result.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(result.latenciesMs, 99).toFixed(1)} ms; ` +
      `store statements per settlement ${(queries / count).toFixed(2)}; failures ${result.failures.length}`,
  );
  if (result.failures.length > 0) console.log(`  first failure: ${result.failures[0]}`);
}

type LedgerMode = "execute" | "stub";

function describeMode(mode: LedgerMode): string {
  return mode === "stub" ? "STUBBED (sends acknowledged, not executed)" : "executing";
}

/** Ledger calls made during a run, per settlement, and the sends that reached the ledger. */
function describeCalls(before: LedgerStats, after: LedgerStats, count: number): string {
  const methods = ["sendTransaction", "isBlockhashValid", "getBlockHeight", "getSignatureStatuses", "getMultipleAccounts"];
  const perSettlement = methods.map((m) => `${m} ${(((after.calls[m] ?? 0) - (before.calls[m] ?? 0)) / count).toFixed(2)}`);
  return `ledger RPC calls per settlement: ${perSettlement.join(", ")}; sends that reached the ledger: ${after.sends - before.sends}`;
}

async function throughput(databaseUrl: string, n: number, c: number, pool: number, mode: LedgerMode): Promise<boolean> {
  const ledger = await startLedgerProcess(0, mode);
  const rig = await startBenchRig({ databaseUrl, poolMax: pool, ledgerUrl: ledger.url });
  try {
    const payments = await preparePayments(rig, n);
    // Warm-up outside the measurement: JIT, pool connections, ledger program cache.
    await run(rig, await preparePayments(rig, Math.min(50, n)), c);
    const queriesBefore = rig.queries();
    const callsBefore = await ledger.stats();
    const result = await run(rig, payments, c);
    report(`throughput, ledger ${describeMode(mode)} (concurrency ${c}, pool ${pool})`, result, rig.queries() - queriesBefore, n);
    console.log(`  ${describeCalls(callsBefore, await ledger.stats(), n)}; records: ${JSON.stringify(await rig.states())}`);
    return result.failures.length === 0;
  } finally {
    await rig.close();
    await ledger.stop();
  }
}

async function latencyBound(databaseUrl: string, n: number, confirmMs: number, pool: number, mode: LedgerMode): Promise<boolean> {
  const ledger = await startLedgerProcess(confirmMs, mode);
  const rig = await startBenchRig({ databaseUrl, poolMax: pool, ledgerUrl: ledger.url });
  try {
    const payments = await preparePayments(rig, n);
    // Warm-up outside the measurement, as in the throughput run.
    await run(rig, await preparePayments(rig, 50), 50);
    const before = await rig.states();
    const rssBefore = Math.round(process.memoryUsage().rss / 1024 / 1024);
    const peakRss = sampleRss();
    const queriesBefore = rig.queries();
    const callsBefore = await ledger.stats();
    const result = await run(rig, payments, n);
    const peak = peakRss();
    report(`latency-bound, ledger ${describeMode(mode)} (${n} at once, confirmation after ${confirmMs} ms)`, result, rig.queries() - queriesBefore, n);
    const after = await rig.states();
    const settled = (after["settled"] ?? 0) - (before["settled"] ?? 0);
    console.log(`  RSS before ${rssBefore} MiB, peak ${peak} MiB; records settled by this run: ${settled}/${n}; all states: ${JSON.stringify(after)}`);
    const pass = result.seconds < LATENCY_TARGET_SECONDS && settled === n && result.failures.length === 0;
    console.log(`  ${describeCalls(callsBefore, await ledger.stats(), n)}`);
    console.log(`  target (< ${LATENCY_TARGET_SECONDS} s, every record settled): ${pass ? "MET" : "MISSED"}`);
    return pass;
  } finally {
    await rig.close();
    await ledger.stop();
  }
}

const n = flag("n", 2000);
const c = flag("c", 64);
const pool = flag("pool", 10);
const latencyN = flag("latency-n", 1000);
const confirmMs = flag("confirm-ms", 500);

const runsIndex = process.argv.indexOf("--runs");
const runs = new Set((runsIndex >= 0 ? (process.argv[runsIndex + 1] ?? "") : "throughput,throughput-stub,latency,latency-stub").split(","));

const database = await createBenchDatabase(ADMIN_URL);
let ok = false;
try {
  const fast = runs.has("throughput") ? await throughput(database.url, n, c, pool, "execute") : true;
  // The same runs with the ledger's execution stubbed: what the facilitator itself sustains.
  if (runs.has("throughput-stub")) await throughput(database.url, n, c, pool, "stub");
  const bound = runs.has("latency") ? await latencyBound(database.url, latencyN, confirmMs, pool, "execute") : true;
  if (runs.has("latency-stub")) await latencyBound(database.url, latencyN, confirmMs, pool, "stub");
  ok = fast && bound;
} finally {
  await database.drop();
}
console.log("reference comparison (official @x402 facilitator): not run by this script");
process.exit(ok ? 0 : 1);
