/**
 * The registry index's slices alone, without requests or a load generator: the cold load, then 1 %
 * and 20 % of the agents rewritten and found by a full read, each with the index's longest slice in
 * wall and CPU time, the longest hold of the event loop by anything (the in-process ledger's
 * listing, the collector's pauses, several tasks' slices in one turn) with how many passed 10 ms of
 * CPU, and the process's heap cells. CPU times are to the microsecond (thread-cpu.ts).
 *
 *   BENCH_AGENTS=100000 bun bench/registry-slices.ts
 *   BUN_JSC_logGC=1 BENCH_AGENTS=100000 bun bench/registry-slices.ts 2>&1 | grep -v Eden   # with JSC's collections
 *
 * A slice's CPU time includes any collection that ran inside it: with BUN_JSC_logGC=1, a pause
 * (`p=… ms`) beside a long slice is where its time went. BENCH_SLICE_MS sets the index's slice.
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex, type RefreshReport } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { programId, rewriteShare, writeAgent } from "./registry-agents.ts";
import { threadCpuMs } from "./thread-cpu.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const cpuMs = threadCpuMs;

const ledger = createLocalLedger();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);

const step = "cold load";
/**
 * Every hold of the event loop, whoever's: a 1 ms timer and the CPU this thread spent between two
 * firings (the ledger read's own work and the collector's pauses included, the machine's other
 * processes not).
 */
let holdCpu = 0;
let holdsOver10 = 0;
let lastTick = cpuMs();
const holds = setInterval(() => {
  const now = cpuMs();
  holdCpu = Math.max(holdCpu, now - lastTick);
  if (now - lastTick > 10) holdsOver10++;
  lastTick = now;
}, 1);
const rows: Record<string, unknown>[] = [];
const reports: RefreshReport[] = [];
const onRefresh = (r: RefreshReport) => {
  if (r.kind === "agents") reports.push(r);
};
function row(name: string): void {
  const r = reports.splice(0).at(-1);
  if (!r) return;
  rows.push({ step: name, "busy ms": Math.round(r.busyMs), "longest slice wall / CPU ms": `${r.longestSliceMs.toFixed(1)} / ${r.longestSliceCpuMs.toFixed(1)}`, "longest loop hold CPU ms, > 10 ms": `${holdCpu.toFixed(1)}, ${holdsOver10}`, changed: r.changed, "heap cells, garbage included": heapStats().objectCount });
  holdCpu = 0;
  holdsOver10 = 0;
}
const sliceMs = process.env.BENCH_SLICE_MS ? { sliceMs: Number(process.env.BENCH_SLICE_MS) } : {};
const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 3_600_000, logger: silentLogger, cpuNow: cpuMs, onRefresh, ...sliceMs });
await index.ready();
row(step);
for (const [name, share, version] of [["1 % changed", 0.01, 1], ["20 % changed", 0.2, 2], ["20 % changed again", 0.2, 3]] as const) {

  rewriteShare(ledger, AGENTS, share, version);
  holdCpu = 0;
  holdsOver10 = 0;
  lastTick = cpuMs();
  await index.refresh();
  row(name);
}
clearInterval(holds);
console.log(`${AGENTS} agents, load ${loadavg().map((l) => l.toFixed(2)).join(" ")} (Bun ${Bun.version})`);
console.table(rows);
await index.close();
