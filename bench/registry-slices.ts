/**
 * The registry index's slices alone, without requests or a load generator: the cold load, then 1 %
 * and 20 % of the agents rewritten and found by a full read, each with its longest slice in wall and
 * CPU time, the slices over 10 ms of CPU and the process's heap cells.
 *
 *   BENCH_AGENTS=100000 bun bench/registry-slices.ts
 *   BUN_JSC_logGC=1 BENCH_AGENTS=100000 bun bench/registry-slices.ts 2>&1 | grep -v Eden   # with JSC's collections
 *
 * A slice's CPU time includes any collection that ran inside it: with BUN_JSC_logGC=1, a pause
 * (`p=… ms`) beside a long slice is where its time went.
 */
import { heapStats } from "bun:jsc";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { setImmediate } from "node:timers";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex, type RefreshReport } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { programId, rewriteShare, writeAgent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
/** This thread's CPU time in ms (Linux). */
const cpuMs = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;

const ledger = createLocalLedger();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);

let step = "cold load";
let sliceStart = Number.NaN;
const over10: Record<string, number> = {};
/** Counts slices over 10 ms of CPU: from each resume to the next yield (a step's first slice, after its ledger read, is not counted). */
const yieldNow = (): Promise<void> => {
  if (cpuMs() - sliceStart > 10) over10[step] = (over10[step] ?? 0) + 1;
  return new Promise((resolve) =>
    setImmediate(() => {
      sliceStart = cpuMs();
      resolve();
    }),
  );
};
const rows: Record<string, unknown>[] = [];
const onRefresh = (r: RefreshReport) => {
  if (r.kind !== "agents") return;
  rows.push({ step, "busy ms": Math.round(r.busyMs), "longest slice wall / CPU ms": `${r.longestSliceMs.toFixed(0)} / ${r.longestSliceCpuMs.toFixed(0)}`, "slices > 10 ms CPU": over10[step] ?? 0, changed: r.changed, "heap cells, garbage included": heapStats().objectCount });
};
const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 3_600_000, logger: silentLogger, yieldNow, cpuNow: cpuMs, onRefresh });
await index.ready();
for (const [name, share, version] of [["1 % changed", 0.01, 1], ["20 % changed", 0.2, 2], ["20 % changed again", 0.2, 3]] as const) {
  step = name;
  sliceStart = Number.NaN;
  rewriteShare(ledger, AGENTS, share, version);
  await index.refresh();
}
console.log(`${AGENTS} agents, load ${loadavg().map((l) => l.toFixed(2)).join(" ")} (Bun ${Bun.version})`);
console.table(rows);
await index.close();
