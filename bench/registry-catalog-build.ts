/**
 * The agent catalog's build alone, without the ledger or the decoder: what a cold refresh or a base
 * rebuild (past a sixteenth of the agents changed) costs after the accounts are decoded.
 *
 *   BENCH_AGENTS=100000 bun bench/registry-catalog-build.ts
 *
 * Decodes BENCH_AGENTS seeded AgentIdentity accounts once, then builds the catalog BENCH_ROUNDS
 * times (6) from the same records and prints each build's wall and process CPU time (CPU includes
 * the collector's threads), the median of the builds after the first (the first also creates the
 * entries), and the JS heap and RSS after a full collection. Wall time follows the machine's load;
 * compare CPU and memory across runs.
 */
import { heapStats } from "bun:jsc";
import { buildAgentCatalog } from "../src/domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../src/domain/registry/agent-record.ts";
import { decodeAgentIdentity, encodeAgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { address, agent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const records: AgentRecord[] = [];
for (let n = 0; n < AGENTS; n++) {
  const decoded = decodeAgentIdentity(encodeAgentIdentity(agent(n)));
  if (decoded.ok) records.push({ address: address(9, n), identity: decoded.value });
}
Bun.gc(true);
console.log(`${AGENTS} records decoded: JS heap ${mb(heapStats().heapSize)}, RSS ${mb(process.memoryUsage().rss)}`);

const cpuMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const catalog = buildAgentCatalog(records);
  const used = process.cpuUsage(cpu);
  cpuMs.push((used.user + used.system) / 1000);
  console.log(`build ${round + 1}: wall ${(performance.now() - wall).toFixed(0)} ms, CPU ${cpuMs.at(-1)?.toFixed(0)} ms (${catalog.size} agents)`);
}
const later = cpuMs.slice(1).sort((a, b) => a - b);
Bun.gc(true);
console.log(`median CPU of builds 2-${ROUNDS}: ${later[Math.floor(later.length / 2)]?.toFixed(0)} ms; after: JS heap ${mb(heapStats().heapSize)}, RSS ${mb(process.memoryUsage().rss)}`);
