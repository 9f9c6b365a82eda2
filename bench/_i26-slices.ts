import { readFileSync } from "node:fs";
import { setImmediate } from "node:timers";
import { heapStats } from "bun:jsc";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { programId, rewriteShare, writeAgent } from "./registry-agents.ts";
const cpu = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const ledger = createLocalLedger();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
let last = cpu(); let lastWall = performance.now();
const long: string[] = [];
let label = "cold";
const yieldNow = () => { const c = cpu(); const w = performance.now(); if (c - last > 10) long.push(`${label}: ${(c - last).toFixed(0)} cpu / ${(w - lastWall).toFixed(0)} wall`); return new Promise<void>((r) => setImmediate(() => { last = cpu(); lastWall = performance.now(); r(); })); };
const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 3_600_000, logger: silentLogger, yieldNow, cpuNow: cpu, onRefresh: (r) => console.log(label, r.kind, r.source, "busy", r.busyMs.toFixed(0), "longest", r.longestSliceMs.toFixed(1), "/", r.longestSliceCpuMs.toFixed(1)) });
await index.ready();
console.log("cells", heapStats().objectCount);
for (const [name, share] of [["1%", 0.01], ["20%", 0.2], ["20%b", 0.2]] as const) {
  label = name; rewriteShare(ledger, AGENTS, share, name === "20%b" ? 3 : name === "1%" ? 1 : 2);
  last = cpu(); await index.refresh();
}
console.log(long.join("\n"));
await index.close();
