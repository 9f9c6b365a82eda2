/**
 * Heap cells allocated per request of each registry scenario, by type: a full collection, then N
 * requests through the routes (no socket), then the heap's cells counted without collecting (cells
 * allocated since the last collection are counted whether or not they are still reachable).
 *
 *   BENCH_AGENTS=100000 bun bench/registry-allocations.ts [requests per scenario, default 40]
 *
 * Counts are exact whatever the machine's load (an eden collection inside the N requests would
 * undercount; N is kept small so none runs).
 */
import { heapStats } from "bun:jsc";
import { Elysia } from "elysia";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { APP_CONFIG } from "../src/http/app-config.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { registryRoutes } from "../src/http/registry/registry-routes.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { programId, registryScenarios, writeAgent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const N = Number(process.argv[2] ?? 40);
const ledger = createLocalLedger();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 3_600_000, logger: silentLogger });
await index.ready();
const app = new Elysia(process.env.BENCH_NORMALIZE ? {} : APP_CONFIG).use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }));
const base = "http://local";
const page2 = (await (await app.handle(new Request(`${base}/agents?limit=20`))).json()) as { cursor: { next: string } };
const scenarios = registryScenarios(page2.cursor.next);
const top = Number(process.env.BENCH_TOP ?? 12);
const totals: Record<string, number | string>[] = [];
for (const [name, path] of scenarios) {
  const url = `${base}${path}`;
  for (let i = 0; i < 20; i++) await (await app.handle(new Request(url))).arrayBuffer(); // warm (presented views cached)
  Bun.gc(true);
  const before = heapStats();
  let bytes = 0;
  for (let i = 0; i < N; i++) bytes += (await (await app.handle(new Request(url))).arrayBuffer()).byteLength;
  const after = heapStats();
  const byType = Object.entries(after.objectTypeCounts)
    .map(([type, count]) => [type, (count - (before.objectTypeCounts[type] ?? 0)) / N] as const)
    .filter(([, c]) => c >= 1)
    .sort((a, b) => b[1] - a[1]);
  totals.push({ scenario: name, "cells/request": Math.round((after.objectCount - before.objectCount) / N), "heap KB/request": Math.round((after.heapSize - before.heapSize) / N / 1024), "body bytes": Math.round(bytes / N), top: byType.slice(0, top).map(([t, c]) => `${t} ${c.toFixed(0)}`).join(", ") });
}
for (const row of totals) console.log(JSON.stringify(row));
await index.close();
