/**
 * The pieces bench/settle.ts measures: the real settlement service and facilitator app over
 * a PostgreSQL store (settlements and the fee budget's counters) whose executor counts
 * statements, talking JSON-RPC to the embedded ledger in a child process
 * (bench/settle-ledger.ts), which can hold confirmations back.
 */
import type { Address } from "@solana/kit";
import postgres from "postgres";
import { silentLogger } from "../src/application/ports/logger.ts";
import { type SettlementService, createSettlementService } from "../src/application/settlement/settle-payment.ts";
import { settlementVerifier, verifyPayment } from "../src/application/payment/verify.ts";
import { pipelineDeps } from "../fixtures/verify-deps.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../src/domain/networks.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../src/domain/verification/verification-policy.ts";
import { createFacilitatorApp } from "../src/http/facilitator-app.ts";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import { createRpcLedger } from "../src/infrastructure/ledger/rpc-ledger.ts";
import { createLocalSigner } from "../src/infrastructure/signers/index.ts";
import { createFeeBudget } from "../src/application/settlement/fee-budget.ts";
import { type OpenedStore, type SqlExecutor, createSqlSettlementStore, openStore } from "../src/infrastructure/store/index.ts";
import { createSqlWindowCounters } from "../src/infrastructure/store/sql-window-counters.ts";
import type { FundingLedger } from "../fixtures/payments.ts";
import { createVerificationCaches } from "../src/application/payment/verification-caches.ts";

export type BenchRig = Readonly<{
  /** Funding and blockhashes through the ledger's JSON-RPC cheat codes. */
  funding: FundingLedger;
  feePayer: Address;
  settlement: SettlementService;
  app: ReturnType<typeof createFacilitatorApp>;
  /** Store statements (each one round trip) since the rig started. */
  queries(): number;
  /** Rows in each state, read directly from the database. */
  states(): Promise<Readonly<Record<string, number>>>;
  close(): Promise<void>;
}>;

export type BenchRigOptions = Readonly<{ databaseUrl: string; poolMax: number; ledgerUrl: string }>;

export async function startBenchRig(options: BenchRigOptions): Promise<BenchRig> {
  const rpcLedger = createRpcLedger({ url: options.ledgerUrl });
  const funding = rpcFunding(options.ledgerUrl, rpcLedger.getLatestBlockhash);
  const store: OpenedStore = await openStore({ databaseUrl: options.databaseUrl, maxConnections: options.poolMax });
  let queries = 0;
  const counted: SqlExecutor = Object.freeze({
    ...store.executor,
    query: (text, params) => {
      queries += 1;
      return store.executor.query(text, params);
    },
  });
  const signer = await createLocalSigner(crypto.getRandomValues(new Uint8Array(32)), "bench key");
  const feePayer = signer.address;
  await rpcCall(options.ledgerUrl, "requestAirdrop", [feePayer, 1_000_000_000_000]);

  const verifyDeps = pipelineDeps(rpcLedger, [feePayer]);
  // The fee budget as production composes it without REDIS_URL: its counters in the same database
  // (limits far above the run, so only its cost shows).
  const feeBudget = createFeeBudget(
    createSqlWindowCounters(counted),
    { perPayerLamports: 10n ** 15n, perFeePayerLamports: 10n ** 15n, windowSeconds: 3600 },
    { now: () => Date.now() },
  );
  const settlement = createSettlementService({
    ledger: rpcLedger,
    store: createSqlSettlementStore(counted),
    feeBudget,
    logger: silentLogger,
    network: SOLANA_DEVNET,
    verify: settlementVerifier(verifyDeps),
    sign: async (_address, message) => {
      const [signature] = await signer.signMessages([message]);
      if (!signature) throw new Error("no signature");
      return signature;
    },
  });
  const ok = async () => ({ status: "ok" as const });
  const app = createFacilitatorApp({ ...verifyDeps, verify: (request) => verifyPayment(request, verifyDeps), settlement, logger: silentLogger, health: { ledger: ok, store: ok, signer: ok }, version: "bench" });

  return Object.freeze({
    funding,
    feePayer,
    settlement,
    app,
    queries: () => queries,
    async states() {
      const rows = await store.executor.query("SELECT state, count(*)::int AS n FROM settlements GROUP BY state");
      return Object.fromEntries(rows.map((r) => [String(r["state"]), Number(r["n"])]));
    },
    async close() {
      await settlement.drain();
      await store.close();
    },
  });
}

/** A uniquely named database on the admin server, dropped by `drop`. */
export async function createBenchDatabase(adminUrl: string): Promise<Readonly<{ url: string; drop(): Promise<void> }>> {
  const name = `bench_settle_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 1 });
    },
  };
}

/** Percentile of ascending-sorted numbers (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Samples resident memory every `everyMs` until stopped; returns the peak in MiB. */
export function sampleRss(everyMs = 25): () => number {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(peak, process.memoryUsage().rss) / 1024 / 1024);
  };
}

/** One JSON-RPC call; throws with the node's message on an error answer. */
export async function rpcCall(url: string, method: string, params: readonly unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

function rpcFunding(url: string, latest: FundingLedger["getLatestBlockhash"]): FundingLedger {
  return Object.freeze({
    async setTokenAccount(owner: Address, mint: Address, update: Readonly<{ amount: bigint }>) {
      await rpcCall(url, "surfnet_setTokenAccount", [owner, mint, { amount: Number(update.amount) }]);
      const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      return ata;
    },
    getLatestBlockhash: latest,
  });
}

export type LedgerStats = Readonly<{ sends: number; calls: Readonly<Record<string, number>> }>;

export type LedgerProcess = Readonly<{ url: string; /** The child's process id (for CPU accounting). */ pid: number; stats(): Promise<LedgerStats>; stop(): Promise<void> }>;

/** Starts bench/settle-ledger.ts and waits for its URL. */
export async function startLedgerProcess(confirmAfterMs: number, mode: "execute" | "stub" = "execute"): Promise<LedgerProcess> {
  const profile = process.env["BENCH_LEDGER_PROFILE_DIR"];
  const command = [process.execPath, ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []), `${import.meta.dir}/settle-ledger.ts`, String(confirmAfterMs), mode];
  const child = Bun.spawn(command, {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("ledger process exited before listening");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const { url } = JSON.parse(text.split("\n")[0] ?? "{}") as { url: string };
  return Object.freeze({
    url,
    pid: child.pid,
    stats: async () => (await rpcCall(url, "bench_stats", [])) as LedgerStats,
    async stop() {
      // Closing stdin lets the child exit on its own (and write a profile when asked).
      await child.stdin.end();
      const exited = await Promise.race([child.exited, new Promise((resolve) => setTimeout(() => resolve(null), 5_000))]);
      if (exited === null) child.kill("SIGKILL");
    },
  });
}
