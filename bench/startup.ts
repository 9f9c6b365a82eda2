/**
 * Start-up time to healthy: spawns `bun src/main.ts` and polls every port it serves until each
 * answers (the facilitator's and, for ROLE=all, the registry's /health with 200; the embedded
 * ledger's JSON-RPC getHealth with "ok"). Beside the wall time, the CPU the process had used by
 * then (every thread, and its main thread alone), which moves less than the wall time on a shared machine. Runs with
 * embedded defaults (fresh DATA_DIR, then the same DATA_DIR again), for ROLE=all (the
 * default) and ROLE=facilitator, and with PostgreSQL (DATABASE_URL, a bench database created and
 * dropped here). Beside each time, the child's peak resident size (VmHWM) when it became healthy.
 *
 * A fresh DATA_DIR copies the PGlite template that `npm ci` builds (docs/store.md); without one,
 * PGlite runs initdb.
 *
 *   bun run bench/startup.ts [runs=3]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { checkPgliteTemplate, DEFAULT_PGLITE_TEMPLATE } from "../src/infrastructure/store/pglite-template.ts";
import { type HealthTarget, loadAverage, median, randomPort, startService } from "./service-process.ts";

const runs = Number(process.argv[2] ?? 3);
const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

type Sample = Readonly<{ ms: number; cpuMs: number; mainCpuMs: number; peakMb: number }>;

async function timeToHealthy(env: Record<string, string>): Promise<Sample> {
  const port = randomPort();
  const all = (env["ROLE"] ?? "facilitator") === "all";
  const more: HealthTarget[] = [{ port: port + 2, kind: "ledger" }, ...(all ? [{ port: port + 1, kind: "app" as const }] : [])];
  const service = await startService({ ROLE: "facilitator", FACILITATOR_PORT: String(port), REGISTRY_PORT: String(port + 1), LOCAL_LEDGER_PORT: String(port + 2), ...env }, port, more);
  try {
    return { ms: service.healthyMs, cpuMs: service.healthyCpuMs, mainCpuMs: service.healthyMainCpuMs, peakMb: service.memory().hwmMb };
  } finally {
    await service.stop();
  }
}

function summary(label: string, samples: readonly Sample[]): void {
  const times = samples.map((s) => s.ms.toFixed(0)).join(", ");
  const cpu = samples.map((s) => s.cpuMs.toFixed(0)).join(", ");
  console.log(
    `${label.padEnd(52)} median ${median(samples.map((s) => s.ms)).toFixed(0).padStart(5)} ms (${times})   ` +
      `CPU median ${median(samples.map((s) => s.cpuMs)).toFixed(0)} ms (${cpu}), main thread ${median(samples.map((s) => s.mainCpuMs)).toFixed(0)} ms   ` +
      `peak ${median(samples.map((s) => s.peakMb)).toFixed(0)} MB   load ${loadAverage()}`,
  );
}

const template = checkPgliteTemplate(DEFAULT_PGLITE_TEMPLATE);
console.log(`bun ${Bun.version}; PGlite template: ${template.usable ? `yes, missing migrations [${template.missing.join(", ")}]` : `no (${template.reason})`}`);

for (const role of ["all", "facilitator"] as const) {
  const fresh: Sample[] = [];
  const reused: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
    fresh.push(await timeToHealthy({ ROLE: role, DATA_DIR: dir }));
    reused.push(await timeToHealthy({ ROLE: role, DATA_DIR: dir }));
    rmSync(dir, { recursive: true, force: true });
  }
  summary(`ROLE=${role}: embedded ledger + PGlite, fresh DATA_DIR`, fresh);
  summary(`ROLE=${role}: embedded ledger + PGlite, reused DATA_DIR`, reused);
}

const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
const database = `startup_bench_${process.pid}`;
await admin.unsafe(`CREATE DATABASE ${database}`);
try {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const withPostgres: Sample[] = [];
  const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
  for (let i = 0; i < runs; i++) withPostgres.push(await timeToHealthy({ DATA_DIR: dir, DATABASE_URL: url.toString() }));
  rmSync(dir, { recursive: true, force: true });
  summary("ROLE=facilitator: embedded ledger + PostgreSQL", withPostgres);
} finally {
  await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
