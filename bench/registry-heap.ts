/**
 * The registry index's heap alone: heap cells by type and the time of a full collection, with the
 * seeded in-process ledger's own cells measured first and subtracted by the reader.
 *
 *   BENCH_AGENTS=100000 bun bench/registry-heap.ts
 *
 * Object counts are exact whatever the machine's load; the collection times are not.
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { programId, writeAgent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const ledger = createLocalLedger();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
Bun.gc(true);
const seeded = heapStats();
const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 30_000, logger: silentLogger });
await index.ready();
Bun.gc(true);
const built = heapStats();
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
console.log(`${AGENTS} agents, load ${loadavg().map((l) => l.toFixed(2)).join(" ")} (Bun ${Bun.version})`);
console.log(`heap seeded ${mb(seeded.heapSize)}, ${seeded.objectCount} cells; with the index ${mb(built.heapSize)}, ${built.objectCount} cells`);
console.log(`the index adds ${mb(built.heapSize - seeded.heapSize)} and ${built.objectCount - seeded.objectCount} cells`);
const byType = Object.entries(built.objectTypeCounts)
  .map(([type, count]) => [type, count - (seeded.objectTypeCounts[type] ?? 0)] as const)
  .filter(([, count]) => count > 1_000)
  .sort((a, b) => b[1] - a[1]);
console.table(Object.fromEntries(byType));
for (let i = 0; i < 2; i++) {
  const started = performance.now();
  Bun.gc(true);
  console.log(`full collection ${(performance.now() - started).toFixed(0)} ms`);
}
await index.close();
