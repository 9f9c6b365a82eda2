/**
 * What one agent refresh read costs over JSON-RPC (the production path), on the reading side.
 *
 *   bun bench/registry-rpc-read.ts                 10,000 agents
 *   BENCH_AGENTS=100000 bun bench/registry-rpc-read.ts
 *
 * A child process seeds the embedded ledger and serves its JSON-RPC; this process reads the
 * registry's agents two ways while a 1 ms timer measures how long the event loop is held (what a
 * request arriving during the read would wait): with the JSON-RPC ledger adapter (kit's client
 * parses the whole answer on this thread, keeping big integers exact in JS), and with the reader
 * the index uses for JSON-RPC nodes (rpc-program-account-reader.ts: parsed in a Worker).
 */
import { loadavg } from "node:os";
import { silentLogger } from "../src/application/ports/logger.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../src/domain/registry/agent-identity.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../src/domain/registry/pdas.ts";
import { createRpcLedger } from "../src/infrastructure/ledger/rpc-ledger.ts";
import { createRpcProgramAccountReader } from "../src/infrastructure/registry/rpc-program-account-reader.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

if (process.argv[2] === "serve") {
  const { createLocalLedger, serveLocalLedgerRpc } = await import("../src/infrastructure/ledger/local-ledger.ts");
  const { writeAgent } = await import("./registry-agents.ts");
  const ledger = createLocalLedger();
  for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
  const server = serveLocalLedgerRpc(ledger, { port: 0 });
  process.stdout.write(`${server.url}\n`);
  await new Promise(() => {});
}

const child = Bun.spawn([process.execPath, import.meta.path, "serve"], { stdout: "pipe", stderr: "inherit", env: { ...process.env } });
const lines = child.stdout.getReader();
const { value } = await lines.read();
const url = new TextDecoder().decode(value).trim();
const ledger = createRpcLedger({ url, logger: silentLogger, timeoutMs: 120_000 });

const reader = createRpcProgramAccountReader({ url, timeoutMs: 120_000 });
const filters = [{ memcmp: { offset: 0, bytes: new Uint8Array(AGENT_IDENTITY_DISCRIMINATOR) } }];
const ways: [string, () => Promise<readonly unknown[]>][] = [
  ["JSON-RPC ledger (kit client)", () => ledger.getProgramAccounts(DEFAULT_REGISTRY_PROGRAM_ID, filters)],
  ["index reader (Worker parse)", () => reader(DEFAULT_REGISTRY_PROGRAM_ID, filters)],
];
const rows: Record<string, string | number>[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const [way, read] of ways) {
    let longest = 0;
    let last = performance.now();
    const monitor = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const start = performance.now();
    const accounts = await read();
    const wallMs = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 5));
    clearInterval(monitor);
    rows.push({ round: round + 1, read: way, accounts: accounts.length, "wall ms": wallMs.toFixed(0), "longest event-loop hold ms": longest.toFixed(0) });
  }
}
child.kill();
console.log(`\nregistry read over JSON-RPC: ${AGENTS} agents (Bun ${Bun.version}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
console.table(rows);
process.exit(0);
