/**
 * Memory footprint: starts `bun src/main.ts`, waits for /health, leaves it idle, then reads
 * /proc/<pid>/status: VmRSS (idle resident size) and VmHWM (the start-up peak). Scenarios:
 *
 * - embedded defaults (ROLE=all, embedded ledger with the sample agents, PGlite): a fresh
 *   DATA_DIR, then a restart on the same DATA_DIR;
 * - PostgreSQL (a bench database created and dropped here) and an external ledger
 *   (bench/settle-ledger.ts in its own process, SOLANA_RPC_URL pointed at it), a local fee-payer
 *   key: ROLE=all, ROLE=facilitator and ROLE=registry.
 *
 *   bun run bench/footprint.ts [runs=3] [idleSeconds=10]
 *
 * Linux only (/proc). Prints medians, every sample and the load average.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { loadOrCreateDevKeypair } from "../src/infrastructure/signers/dev-keypair.ts";
import { loadAverage, median, randomPort, startService } from "./service-process.ts";
import { startLedgerProcess } from "./settle-rig.ts";

const runs = Number(process.argv[2] ?? 3);
const idleSeconds = Number(process.argv[3] ?? 10);
const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

type Sample = Readonly<{ healthyMs: number; atHealthyMb: number; idleMb: number; peakMb: number }>;

/** One start: time to healthy, RSS when healthy, RSS after `idleSeconds`, and VmHWM. */
async function measure(env: Readonly<Record<string, string>>): Promise<Sample> {
  const facilitatorPort = randomPort();
  const registryPort = facilitatorPort + 1;
  const healthPort = env["ROLE"] === "registry" ? registryPort : facilitatorPort;
  const service = await startService(
    { FACILITATOR_PORT: String(facilitatorPort), REGISTRY_PORT: String(registryPort), LOCAL_LEDGER_PORT: "0", ...env },
    healthPort,
  );
  try {
    const atHealthyMb = service.memory().rssMb;
    await Bun.sleep(idleSeconds * 1000);
    const { rssMb, hwmMb } = service.memory();
    return { healthyMs: service.healthyMs, atHealthyMb, idleMb: rssMb, peakMb: hwmMb };
  } finally {
    await service.stop();
  }
}

function report(label: string, samples: readonly Sample[]): void {
  const column = (pick: (s: Sample) => number): string => `${median(samples.map(pick)).toFixed(0).padStart(5)} (${samples.map((s) => pick(s).toFixed(0)).join(", ")})`;
  console.log(label);
  console.log(`  healthy after ms   ${column((s) => s.healthyMs)}`);
  console.log(`  RSS at healthy MB  ${column((s) => s.atHealthyMb)}`);
  console.log(`  idle RSS MB        ${column((s) => s.idleMb)}    after ${idleSeconds} s`);
  console.log(`  peak VmHWM MB      ${column((s) => s.peakMb)}`);
  console.log(`  load average       ${loadAverage()}`);
}

async function embeddedDefaults(): Promise<void> {
  const fresh: Sample[] = [];
  const restart: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "footprint-bench-"));
    try {
      fresh.push(await measure({ DATA_DIR: dir }));
      restart.push(await measure({ DATA_DIR: dir }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  report("embedded defaults (ROLE=all, embedded ledger + sample agents, PGlite), fresh DATA_DIR", fresh);
  report("embedded defaults, restart on the same DATA_DIR", restart);
}

async function postgresAndExternalLedger(): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const database = `footprint_bench_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${database}`);
  const ledger = await startLedgerProcess(0);
  const dir = mkdtempSync(join(tmpdir(), "footprint-bench-"));
  try {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${database}`;
    const keyPath = join(dir, "fee-payer-bench.json");
    const { signer } = await loadOrCreateDevKeypair(keyPath);
    await fetch(ledger.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "requestAirdrop", params: [signer.address, 10_000_000_000] }),
    });
    const env = { DATA_DIR: dir, DATABASE_URL: url.toString(), SOLANA_RPC_URL: ledger.url, FEE_PAYER_SIGNER: "local", FEE_PAYER_KEYPAIR_PATH: keyPath };
    for (const role of ["all", "facilitator", "registry"] as const) {
      const samples: Sample[] = [];
      for (let i = 0; i < runs; i++) samples.push(await measure({ ...env, ROLE: role }));
      report(`PostgreSQL + external ledger, ROLE=${role}`, samples);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await ledger.stop();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

console.log(`bun ${Bun.version}, ${runs} runs per scenario, median (samples)`);
await embeddedDefaults();
await postgresAndExternalLedger();
