/**
 * The embedded ledger's owner-filtered getProgramAccounts, as GET /users/me reads it (the agents
 * of one wallet, read fresh: AgentIdentity discriminator + owner memcmp at offset 40).
 *
 *   bun bench/registry-owner-read.ts            10,000 agents, 50 reads
 *   BENCH_AGENTS=100000 bun bench/registry-owner-read.ts
 *
 * Prints the time per read (median and max: all of it holds the event loop unless the ledger
 * yields) and how much RSS the reads added, after a full GC.
 */
import { loadavg } from "node:os";
import { getAddressEncoder } from "@solana/kit";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../src/domain/registry/agent-identity.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../src/domain/registry/pdas.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { address, writeAgent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const READS = Number(process.env.BENCH_READS ?? 50);

const ledger = createLocalLedger();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
const filters = [
  { memcmp: { offset: 0, bytes: new Uint8Array(AGENT_IDENTITY_DISCRIMINATOR) } },
  { memcmp: { offset: 40, bytes: new Uint8Array(getAddressEncoder().encode(address(2, 42))) } },
];

Bun.gc(true);
const rssBefore = process.memoryUsage().rss;
const times: number[] = [];
let found = 0;
for (let i = 0; i < READS; i++) {
  const start = performance.now();
  found = (await ledger.getProgramAccounts(DEFAULT_REGISTRY_PROGRAM_ID, filters)).length;
  times.push(performance.now() - start);
}
Bun.gc(true);
await new Promise((resolve) => setTimeout(resolve, 1_000));
Bun.gc(true);
const rssAfter = process.memoryUsage().rss;
times.sort((a, b) => a - b);

console.log(`owner-filtered getProgramAccounts on the embedded ledger: ${AGENTS} agents, ${READS} reads, ${found} agents owned (Bun ${Bun.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
console.table([
  { metric: "fastest read", value: `${(times[0] ?? 0).toFixed(1)} ms` },
  { metric: "median read", value: `${(times[Math.floor(times.length / 2)] ?? 0).toFixed(1)} ms` },
  { metric: "slowest read", value: `${(times.at(-1) ?? 0).toFixed(1)} ms` },
  { metric: "RSS added by the reads (after GC)", value: `${((rssAfter - rssBefore) / 1024 / 1024).toFixed(0)} MB (${((rssAfter - rssBefore) / 1024 / 1024 / READS).toFixed(1)} MB a read)` },
]);
