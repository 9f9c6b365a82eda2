import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import type { Address } from "@solana/kit";
import { DEFAULT_REGISTRY_PROGRAM_ID, findAgentPda } from "../../src/domain/registry/pdas.ts";
import { DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { buildSampleRegistry } from "../../src/infrastructure/registry/sample-agents/sample-agent-accounts.ts";
import { BUN, ROOT, type RunningService, spawnService } from "../walkthrough/support/spawn-service.ts";

/**
 * `npm run demo` as a new user runs it: `bun src/main.ts` as a real child process with no
 * configuration (embedded litesvm ledger with real SPL Token, PGlite, sample agents seeded), then
 * `bun examples/demo.ts` as a second real child process, which pays through the stock
 * @x402/express 2.27.0 middleware, @x402/core's HTTPFacilitatorClient, @x402/fetch and @x402/svm
 * 2.27.0, then registers an agent from metadata it serves on 127.0.0.1. Nothing is mocked; the
 * balances are read back from the ledger's JSON-RPC.
 */
const dataDir = mkdtempSync(join(tmpdir(), "demo-"));
let service: RunningService | null = null;

afterAll(async () => {
  await service?.stop("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

type Run = Readonly<{ exitCode: number; stdout: string; stderr: string }>;

async function runDemo(env: Record<string, string>): Promise<Run> {
  const child = Bun.spawn([BUN, "examples/demo.ts"], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout as ReadableStream<Uint8Array>).text(),
    new Response(child.stderr as ReadableStream<Uint8Array>).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

async function ledgerCall<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(service?.urls["ledgerRpc"] ?? "", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
}

describe("npm run demo (real child processes: `bun src/main.ts` on the embedded litesvm ledger + PGlite, and `bun examples/demo.ts` with the stock @x402/express, @x402/fetch, @x402/svm 2.27.0)", () => {
  beforeAll(async () => {
    service = await spawnService({ DATA_DIR: dataDir, REGISTRY_PORT: "0", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0" });
  }, 30_000);

  test("lists the seeded agents, pays the payable agent's api service through the stock middleware, and the balances move by the price", async () => {
    const urls = service?.urls ?? {};
    const samples = await buildSampleRegistry(DEFAULT_REGISTRY_PROGRAM_ID, DEVNET_USDC_MINT as Address);
    const payable = samples.payable;

    const run = await runDemo({ REGISTRY_URL: urls["registry"] ?? "", FACILITATOR_URL: urls["facilitator"] ?? "", LEDGER_RPC_URL: urls["ledgerRpc"] ?? "" });

    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });
    const out = run.stdout;
    // 1. every sample agent is listed
    expect(out).toContain(`/agents: ${samples.agents.length} agents`);
    for (const agent of samples.agents) expect(out).toContain(new URL(agent.metadataUri).hostname);
    // 2. the payable agent, at its deterministic addresses (the README shows them)
    expect(out).toContain(`agent ${payable.nftMint} (PDA ${payable.address})`);
    expect(out).toContain(`owner ${payable.owner}: the payTo of its services`);
    expect(out).toContain("api   https://weather-oracle.example.com/v1/forecast");
    // 3. served after payment
    expect(out).toMatch(/GET \/v1\/forecast -> 200 \{"city":"Lisbon"/);
    // 4. balances moved by the price (0.01 USDC) and the settlement is on the ledger and in the facilitator's record
    expect(out).toMatch(/buyer +1\.00 -> 0\.99/);
    expect(out).toMatch(/merchant +0\.08 -> 0\.09/);
    const signature = /facilitator POST \/settle answered: \{"success":true,[^\n]*"transaction":"([1-9A-HJ-NP-Za-km-z]{64,88})"/.exec(out)?.[1];
    expect(signature).toBeDefined();
    expect(out).toContain("ledger getSignatureStatuses: confirmed at slot");
    expect(out).toContain("(the facilitator's fee payer), err null");
    expect(out).toContain('"invalidReason":"ALREADY_SETTLED"');
    expect(out).toContain(`settled in ${signature}`);

    // Read back independently of the demo.
    const statuses = await ledgerCall<{ value: ({ err: unknown; confirmationStatus: string } | null)[] }>("getSignatureStatuses", [[signature], { searchTransactionHistory: true }]);
    expect(statuses.value[0]).toMatchObject({ err: null });
    const [merchantAta] = await findAssociatedTokenPda({ owner: payable.owner, mint: DEVNET_USDC_MINT as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const balance = await ledgerCall<{ value: { amount: string } }>("getTokenAccountBalance", [merchantAta]);
    expect(BigInt(balance.value.amount)).toBe((payable.ownerUsdc ?? 0n) + 10_000n);

    // 5. an agent registered from this laptop (issue 25 §4): metadata served on 127.0.0.1 (the
    // service allows loopback metadata by default with the embedded ledger), register_agent built
    // by POST /agents/register, signed by the owner, decoded; not executable without the program.
    expect(out).toContain(`5. register an agent (POST ${urls["registry"]}/agents/register)`);
    const served = /metadata served here at (http:\/\/127\.0\.0\.1:\d+\/agent\.json) \(sha256 ([0-9a-f]{64})\)/.exec(out);
    expect(served).not.toBeNull();
    const [, metadataUri, digest] = served ?? [];
    const built = /-> 201: asset ([1-9A-HJ-NP-Za-km-z]{32,44}), agent PDA ([1-9A-HJ-NP-Za-km-z]{32,44}), blockhash /.exec(out);
    expect(built).not.toBeNull();
    const [, asset, agentPda] = built ?? [];
    expect(agentPda).toBe((await findAgentPda(DEFAULT_REGISTRY_PROGRAM_ID, asset as Address))[0]);
    expect(out).toContain(`decoded: one register_agent instruction of program ${DEFAULT_REGISTRY_PROGRAM_ID}`);
    expect(out).toContain(`metadataUri        ${metadataUri}`);
    expect(out).toContain(`metadataHash       ${digest} (the document's sha256)`);
    expect(out).toContain(`tags               sha256("data"), sha256("analytics")`);
    expect(out).toContain(`account agentIdentity      ${agentPda}`);
    const signed = /signed as the owner: signatures ([^\n]*)/.exec(out)?.[1] ?? "";
    expect(signed.split(", ").sort()).toEqual(["asset valid", "config authority valid", "owner valid"]);
    expect(out).toContain("ledger simulateTransaction: err ");
    expect(out).toContain(`not broadcast: this ledger has no binary for the x84 registry program ${DEFAULT_REGISTRY_PROGRAM_ID}, so register_agent cannot execute here`);
    // Not executed, so not registered: the registry still lists the sample agents only.
    const listed = (await (await fetch(`${urls["registry"]}/agents?limit=100`)).json()) as { data: { nftMint: string }[] };
    expect(listed.data.map((agent) => agent.nftMint)).not.toContain(asset);
    expect(listed.data).toHaveLength(samples.agents.length);
  }, 60_000);

  test("exits 1 with a message saying to run npm start when nothing listens at the URLs", async () => {
    // A port that was free a moment ago: bound, then released.
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const closed = `http://127.0.0.1:${probe.port}`;
    await probe.stop(true);

    const run = await runDemo({ REGISTRY_URL: closed, FACILITATOR_URL: closed, LEDGER_RPC_URL: closed });

    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`demo failed: the registry is not running at ${closed}`);
    expect(run.stderr).toContain("start it with `npm start` in another terminal, then run `npm run demo` again");
  }, 30_000);
});
