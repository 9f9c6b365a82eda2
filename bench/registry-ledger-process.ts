/**
 * bench:registry's ledger in its own process (BENCH_LEDGER=rpc): the embedded ledger seeded with
 * the bench's agents, served over JSON-RPC and its WebSocket pubsub, so the measured server holds only what a registry
 * reading an external node holds. Prints its URL, then takes one JSON command a line on stdin and
 * answers each with a line of JSON:
 *   {"op":"rewrite","share":0.01,"version":3}   rewrite every (1/share)-th agent
 *   {"op":"churn","from":40,"count":20,"version":9}  rewrite `count` agents, as the in-process churn does
 *   {"op":"write","n":7,"version":12}           rewrite agent n at that version
 *   {"op":"owned","owner":"<address>"}          20 agents owned by that wallet (for /users/me)
 *   {"op":"rss"}                                this process's RSS
 */
import type { Address } from "@solana/kit";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../src/infrastructure/ledger/local-ledger.ts";
import { rewriteShare, writeAgent, writeOwnedAgents } from "./registry-agents.ts";

type Command =
  | { op: "rewrite"; share: number; version: number }
  | { op: "churn"; from: number; count: number; version: number }
  | { op: "write"; n: number; version: number }
  | { op: "owned"; owner: Address }
  | { op: "rss" };

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const ledger = createLocalLedger();
const seedStart = performance.now();
for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
const seedMs = performance.now() - seedStart;
const server = serveLocalLedgerRpc(ledger, { port: 0 });
process.stdout.write(`${JSON.stringify({ url: String(server.url), seedMs })}\n`);

for await (const line of console) {
  if (line.trim() === "") continue;
  const command = JSON.parse(line) as Command;
  if (command.op === "rewrite") rewriteShare(ledger, AGENTS, command.share, command.version);
  else if (command.op === "churn") for (let i = 0; i < command.count; i++) writeAgent(ledger, ((command.from + i) * 7919) % AGENTS, command.version + command.from + i + 1);
  else if (command.op === "write") writeAgent(ledger, command.n, command.version);
  else if (command.op === "owned") writeOwnedAgents(ledger, 20, command.owner, AGENTS);
  process.stdout.write(`${JSON.stringify({ rss: process.memoryUsage().rss })}\n`);
}
