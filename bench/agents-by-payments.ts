/**
 * Benchmark (not a test): what GET /agents?sort=payments costs at 100,000 agents (--agents), with
 * --payees owners paid through this facilitator (each owning two agents; every other agent its own
 * owner). The real catalog (buildAgentCatalog) behind an index of the same shape as the service's;
 * prints the CPU of the ranking (once per counts refresh) and per page: the first page, a page deep
 * in the paid part (from a cursor), the first unpaid page, a filtered page, and the load average.
 * --strangers adds payees that own no agent (most payees of a facilitator are not agent owners).
 *
 *   npx bun bench/agents-by-payments.ts [--agents 100000] [--payees 10000] [--strangers 0] [--pages 200]
 */
import { loadavg } from "node:os";
import type { Address } from "@solana/kit";
import { pageOfAgentsByPayments } from "../src/application/registry/agents-by-payments.ts";
import { buildAgentCatalog } from "../src/domain/registry/agent-catalog.ts";
import type { AgentIdentity } from "../src/domain/registry/agent-identity.ts";
import type { AgentRecord } from "../src/domain/registry/agent-record.ts";
import { categoryHash } from "../src/domain/registry/categories.ts";
import { paidOwnersOf } from "../src/application/registry/paid-owners.ts";
import type { PaymentsCursor } from "../src/domain/registry/payments-order.ts";
import { getBase58Decoder } from "@solana/kit";

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}
const agentCount = flag("agents", 100_000);
const payees = flag("payees", 10_000);
const pages = flag("pages", 200);

const base58 = getBase58Decoder();
const address = (label: number, n: number) => {
  const bytes = new Uint8Array(32);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, label);
  view.setUint32(4, n);
  bytes[31] = 1;
  return base58.decode(bytes) as Address;
};
const tags = ["defi", "trading", "data", "ai"].map((name) => Uint8Array.from(Buffer.from(categoryHash(name), "hex")));

const records: AgentRecord[] = [];
for (let n = 0; n < agentCount; n++) {
  // The first 2 x payees agents belong to the payees (two each); every other agent has an owner of its own.
  const owner = n < payees * 2 ? address(2, n % payees) : address(3, n);
  const identity: AgentIdentity = {
    nftMint: address(1, n),
    owner,
    ownerVersion: 1n,
    feedbackAuthority: owner,
    metadataUri: `https://agents.example/${n}/card.json`,
    metadataHash: new Uint8Array(32),
    tags: [tags[n % 4] as Uint8Array],
    active: n % 10 !== 0,
    createdAt: 1_700_000_000n + BigInt(n),
    updatedAt: 1_700_000_000n + BigInt((n * 7919) % agentCount),
    verifiedFeedbackCount: 0n,
    verifiedScoreSum: 0n,
    unverifiedFeedbackCount: 0n,
    unverifiedScoreSum: 0n,
    validationCount: 0n,
    delegationCount: 0n,
    bump: 255,
  };
  records.push({ address: address(9, n), identity });
}
const catalog = buildAgentCatalog(records);
const index = { listAgents: async (request: Parameters<typeof catalog.page>[0]) => catalog.page(request), agentsOwnedBy: async (owner: Address) => catalog.ownedBy(owner) };
const counts = new Map<string, number>();
for (let p = 0; p < payees; p++) counts.set(address(2, p), 1 + ((p * 31) % 50));
const strangers = flag("strangers", 0);
for (let p = 0; p < strangers; p++) counts.set(address(7, p), 1 + ((p * 17) % 60));

const cpuMs = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

let start = process.cpuUsage();
const { ranking } = await paidOwnersOf(index, counts);
console.log(`ranking ${payees + strangers} payees, ${ranking.length} owning agents (once per counts refresh, sliced): ${cpuMs(start).toFixed(2)} ms CPU`);

async function perPage(name: string, run: () => Promise<unknown>): Promise<void> {
  await run();
  const from = process.cpuUsage();
  for (let i = 0; i < pages; i++) await run();
  console.log(`${name.padEnd(40)} ${((cpuMs(from) / pages) * 1000).toFixed(0)} µs CPU per page (${pages} pages)`);
}

const middle = ranking[Math.floor(ranking.length / 2)] as { owner: string; count: number };
const deep: PaymentsCursor = { part: "paid", key: { count: middle.count, owner: middle.owner, nftMint: catalog.ownedBy(middle.owner)[0]?.identity.nftMint ?? "" } };
const firstUnpaid = await pageOfAgentsByPayments(index, counts, { limit: 20, minPayments: 0, cursor: { part: "paid", key: { count: 1, owner: "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", nftMint: "zzzz" } } });
const unpaidCursor = firstUnpaid.next as PaymentsCursor;
start = process.cpuUsage();
await perPage("first page (limit 20)", () => pageOfAgentsByPayments(index, counts, { limit: 20, minPayments: 0 }));
await perPage("paid part, middle, from a cursor (limit 100)", () => pageOfAgentsByPayments(index, counts, { limit: 100, minPayments: 0, cursor: deep }));
await perPage("unpaid part, from a cursor (limit 100)", () => pageOfAgentsByPayments(index, counts, { limit: 100, minPayments: 0, cursor: unpaidCursor }));
await perPage("first page, category=defi active=false", () => pageOfAgentsByPayments(index, counts, { limit: 20, minPayments: 0, categoryHash: categoryHash("defi"), active: false }));
await perPage("first page, minPayments=49", () => pageOfAgentsByPayments(index, counts, { limit: 20, minPayments: 49 }));
await perPage("default order, first page (for comparison)", () => index.listAgents({ limit: 20 }));
console.log(`${agentCount} agents, ${payees} paid owners (${payees * 2} of their agents), ${strangers} payees owning no agent; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
process.exit(0);
