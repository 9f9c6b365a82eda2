/**
 * `npm run ledger` (src/tools/ledger.ts): the embedded ledger's JSON-RPC alone, in its own process
 * (a real child process and real sockets). Its settings (port, seed, sample registry) and its
 * refusals; and the registry reading it as a node in the production shape: the feedback-detail
 * backfill asks it getSignaturesForAddress on every index refresh, which it now answers from its
 * own history instead of "Method not found" (a warning per refresh before).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { LogFields, Logger } from "../../src/application/ports/logger.ts";
import { parseServiceConfig } from "../../src/infrastructure/config/service-config.ts";
import { buildService, type Service } from "../../src/composition/service.ts";
import { startLedgerTool } from "../support/ledger-process.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";
import { unusedPort } from "../support/ports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const SEED_A = "11".repeat(32);
const SEED_B = "22".repeat(32);

async function rpc(url: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/** The faucet's address: the fee payer of the airdrop the ledger signs with its seed-derived key. */
async function faucetOf(url: string): Promise<string> {
  const signature = (await rpc(url, "requestAirdrop", ["11111111111111111111111111111112", 1_000_000])).result as string;
  const transaction = (await rpc(url, "getTransaction", [signature, { encoding: "json", maxSupportedTransactionVersion: 0 }])).result as { transaction: { message: { accountKeys: string[] } } };
  return transaction.transaction.message.accountKeys[0]!;
}

function runTool(env: Record<string, string>): Readonly<{ code: number; output: string }> {
  const run = Bun.spawnSync([process.execPath, "src/tools/ledger.ts"], { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 30_000 });
  return { code: run.exitCode, output: run.stdout.toString() + run.stderr.toString() };
}

describe("npm run ledger (real child process)", () => {
  test("serves Solana JSON-RPC on 127.0.0.1 at the port asked for, presenting as devnet, and stops on SIGTERM with exit 0", async () => {
    const port = await unusedPort();
    const ledger = await startLedgerTool({ LOCAL_LEDGER_PORT: String(port) });
    try {
      expect(ledger.url).toBe(`http://127.0.0.1:${port}`);
      expect((await rpc(ledger.url, "getGenesisHash")).result).toBe("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi");
      expect((await rpc(ledger.url, "getHealth")).result).toBe("ok");
    } finally {
      expect(await ledger.stop()).toBe(0);
    }
  });

  test("LEDGER_SEED fixes the faucet key (and blockhash sequence): the same seed, the same faucet; another seed, another", async () => {
    const [a1, a2, b] = await Promise.all([startLedgerTool({ LEDGER_SEED: SEED_A }), startLedgerTool({ LEDGER_SEED: SEED_A }), startLedgerTool({ LEDGER_SEED: SEED_B })]);
    try {
      const [faucetA1, faucetA2, faucetB] = await Promise.all([faucetOf(a1.url), faucetOf(a2.url), faucetOf(b.url)]);
      expect(faucetA1).toBe(faucetA2);
      expect(faucetB).not.toBe(faucetA1);
      expect(a1.output()).not.toContain(SEED_A);
    } finally {
      await Promise.all([a1.stop(), a2.stop(), b.stop()]);
    }
  });

  test("refuses NODE_ENV=production, a malformed LEDGER_SEED and an unreadable LEDGER_PROGRAMS binary, naming the setting, exit 1", () => {
    const production = runTool({ NODE_ENV: "production", LOCAL_LEDGER_PORT: "0" });
    expect(production.code).toBe(1);
    expect(production.output).toContain("NODE_ENV=production");
    const seed = runTool({ LEDGER_SEED: "not-hex", LOCAL_LEDGER_PORT: "0" });
    expect(seed.code).toBe(1);
    expect(seed.output).toContain("LEDGER_SEED: expected 64 hexadecimal digits");
    expect(seed.output).not.toContain("not-hex");
    const programs = runTool({ LEDGER_PROGRAMS: "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5=/nonexistent/program.so", LOCAL_LEDGER_PORT: "0" });
    expect(programs.code).toBe(1);
    expect(programs.output).toContain("LEDGER_PROGRAMS");
  });
});

const gate = await postgresGate("tests/tools");

describe.skipIf(!gate.run)("the registry reading `npm run ledger` as its node (production shape)", () => {
  let database: TestDatabase;
  let ledger: Awaited<ReturnType<typeof startLedgerTool>>;
  let service: Service;
  let dataDir: string;
  const lines: { level: string; message: string; fields: LogFields }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    ledger = await startLedgerTool({ SEED_SAMPLE_AGENTS: "true" });
    dataDir = mkdtempSync(join(tmpdir(), "ledger-tool-registry-"));
    const env = { ROLE: "registry", SOLANA_RPC_URL: ledger.url, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: "info" };
    const parsed = parseServiceConfig(env);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    service = await buildService(parsed.config, env, recordingLogger(lines, {}));
  }, 60_000);

  afterAll(async () => {
    await service?.close(5_000);
    await ledger?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("a refresh of the feedback index sends the backfill to the ledger's history, and its calls succeed: no warning", async () => {
    const reply = await service.registryApp.handle(new Request("http://registry.test/agents?limit=50"));
    expect(reply.status).toBe(200);
    const agents = ((await reply.json()) as { data: { nftMint: string }[] }).data;
    expect(agents.length).toBeGreaterThan(0);
    // Reading feedback refreshes the feedback index, which hands its entries to the backfill.
    expect((await service.registryApp.handle(new Request(`http://registry.test/agents/${agents[0]!.nftMint}/feedback`))).status).toBe(200);
    // The backfill paces its RPC calls; its pass ends with this line when every entry was looked up.
    const deadline = Date.now() + 30_000;
    while (!lines.some((l) => l.message === "feedback detail URIs read") && Date.now() < deadline) await Bun.sleep(200);
    const pass = lines.find((l) => l.message === "feedback detail URIs read");
    // Cheat-coded sample feedback has no creating transaction: looked up, and not found.
    expect(pass?.fields).toMatchObject({ resolved: 0 });
    expect(Number(pass?.fields["notFound"])).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level === "warn" || l.level === "error").map((l) => l.message)).toEqual([]);
  }, 60_000);
});

function recordingLogger(into: { level: string; message: string; fields: LogFields }[], bound: LogFields): Logger {
  const at = (level: string) => (message: string, fields: LogFields = {}) => void into.push({ level, message, fields: { ...bound, ...fields } });
  return Object.freeze({ debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: (fields: LogFields) => recordingLogger(into, { ...bound, ...fields }) });
}
