/**
 * `q` (substring of the metadata URI) in process: the catalog's page alone, without HTTP or load, so
 * two builds can be compared on a busy machine.
 *
 *   BENCH_AGENTS=100000 bun bench/registry-q.ts
 *
 * Builds the catalog over BENCH_AGENTS bench agents (`https://agents.example/<n>/agent-card.json`),
 * then for each query times BENCH_PAGES (2,000) first pages of 20 and as many second pages (after
 * the first page's cursor), and prints the median and p99 per page. Also the JS heap and RSS after a
 * full collection with the catalog built.
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import { buildAgentCatalog } from "../src/domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../src/domain/registry/agent-record.ts";
import { decodeAgentIdentity, encodeAgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { address, agent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const PAGES = Number(process.env.BENCH_PAGES ?? 2_000);
/** The HTTP bench's `q` and `combined` queries, the restart bench's, one in every URI, one in none. */
const QUERIES = ["/77", "agent-card", "/77777/agent", "s://agents.example/", "zz-nothing", "7/a"];

const records: AgentRecord[] = [];
for (let n = 0; n < AGENTS; n++) {
  const decoded = decodeAgentIdentity(encodeAgentIdentity(agent(n)));
  if (decoded.ok) records.push({ address: address(9, n), identity: decoded.value });
}
const catalog = buildAgentCatalog(records);
Bun.gc(true);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
console.log(`${AGENTS} agents, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}: JS heap ${mb(heapStats().heapSize)}, RSS ${mb(process.memoryUsage().rss)} with the catalog built`);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;
const rows = QUERIES.map((q) => {
  const first: number[] = [];
  const second: number[] = [];
  let matches = 0;
  for (let i = 0; i < PAGES; i++) {
    let at = performance.now();
    const page = catalog.page({ limit: 20, q });
    first.push(performance.now() - at);
    matches = page.items.length;
    if (!page.nextKey) continue;
    at = performance.now();
    catalog.page({ limit: 20, q, after: page.nextKey });
    second.push(performance.now() - at);
  }
  first.sort((a, b) => a - b);
  second.sort((a, b) => a - b);
  const us = (ms: number | undefined) => (ms === undefined ? "-" : `${(ms * 1000).toFixed(1)} µs`);
  return { q, "first page items": matches, "first page median": us(quantile(first, 0.5)), "first page p99": us(quantile(first, 0.99)), "second page median": us(second.length ? quantile(second, 0.5) : undefined), "second page p99": us(second.length ? quantile(second, 0.99) : undefined) };
});
console.table(rows);
