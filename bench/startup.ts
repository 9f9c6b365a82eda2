/**
 * Start-up time to healthy: spawns `bun src/main.ts` and polls /health until it answers 200.
 * Runs with embedded defaults (fresh DATA_DIR, then the same DATA_DIR again) and with
 * PostgreSQL (DATABASE_URL, a bench database created and dropped here).
 *
 *   bun run bench/startup.ts [runs=3]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const runs = Number(process.argv[2] ?? 3);
const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function timeToHealthy(env: Record<string, string>): Promise<number> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const started = performance.now();
  const child = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: join(import.meta.dir, ".."),
    env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "warn", ROLE: "facilitator", FACILITATOR_PORT: String(port), LOCAL_LEDGER_PORT: "0", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    for (;;) {
      if (performance.now() - started > 60_000) throw new Error("not healthy within 60 s");
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health`);
        if (response.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await Bun.sleep(20);
    }
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
}

function summary(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  console.log(`${label.padEnd(44)} median ${median.toFixed(0).padStart(6)} ms   (${sorted.map((s) => s.toFixed(0)).join(", ")})`);
}

const fresh: number[] = [];
const reused: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
  fresh.push(await timeToHealthy({ DATA_DIR: dir }));
  reused.push(await timeToHealthy({ DATA_DIR: dir }));
  rmSync(dir, { recursive: true, force: true });
}
summary("embedded ledger + PGlite, fresh DATA_DIR", fresh);
summary("embedded ledger + PGlite, reused DATA_DIR", reused);

const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
const database = `startup_bench_${process.pid}`;
await admin.unsafe(`CREATE DATABASE ${database}`);
try {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const withPostgres: number[] = [];
  const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
  for (let i = 0; i < runs; i++) withPostgres.push(await timeToHealthy({ DATA_DIR: dir, DATABASE_URL: url.toString() }));
  rmSync(dir, { recursive: true, force: true });
  summary("embedded ledger + PostgreSQL", withPostgres);
} finally {
  await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
