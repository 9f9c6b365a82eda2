import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import type { Address } from "@solana/kit";
import { decodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { decodeAgentService, isServiceType } from "../../src/domain/registry/agent-service.ts";
import { DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { decodeFeedbackEntry } from "../../src/domain/registry/feedback-entry.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID, findAgentPda, findFeedbackPda, findServicePda } from "../../src/domain/registry/pdas.ts";
import { DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { buildSampleRegistry, type SampleRegistry } from "../../src/infrastructure/registry/sample-agents/sample-agent-accounts.ts";
import { PAYABLE_SAMPLE_HOST } from "../../src/infrastructure/registry/sample-agents/sample-agent-catalog.ts";
import { type TestService, startService } from "../settlement/support/service-harness.ts";
import { BUN, ROOT } from "../walkthrough/support/spawn-service.ts";

/**
 * The development sample registry through the whole service (buildService: embedded litesvm
 * ledger, PGlite, the real agent index and registry routes): the accounts SEED_SAMPLE_AGENTS writes
 * are the program's layouts at the program's PDAs, and read back as a consistent registry.
 */
const PROGRAM_ID = DEFAULT_REGISTRY_PROGRAM_ID;
const USDC = DEVNET_USDC_MINT as Address;

type Agent = { nftMint: Address; owner: Address; metadataUri: string; categories: string[]; active: boolean; reputation: Record<string, number> };
type Feedback = { address: Address; reviewer: Address; score: number; hasPaymentProof: boolean; paymentAmount: number | string; paymentToken: string; revoked: boolean };
type Service = { address: Address; serviceType: string; endpoint: string; active: boolean };

async function get<T>(service: TestService, path: string): Promise<T> {
  const response = await service.registryApp.handle(new Request(`http://registry.test${path}`));
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

describe("sample agents seeded by default on the embedded ledger (whole service: litesvm, PGlite, agent index, registry routes)", () => {
  let service: TestService;
  let samples: SampleRegistry;
  let agents: Agent[];
  beforeAll(async () => {
    service = await startService();
    samples = await buildSampleRegistry(PROGRAM_ID, USDC);
    agents = (await get<{ data: Agent[] }>(service, "/agents?limit=100")).data;
  }, 30_000);
  afterAll(() => service?.dispose());

  test("GET /agents lists about a dozen agents covering every built-in category, one of them inactive", () => {
    expect(agents.length).toBe(samples.agents.length);
    expect(agents.length).toBeGreaterThanOrEqual(10);
    expect(new Set(agents.flatMap((a) => a.categories))).toEqual(new Set(DEFAULT_CATEGORY_NAMES));
    expect(agents.filter((a) => !a.active).length).toBe(1);
    for (const agent of agents) expect(agent.metadataUri).toMatch(/^https:\/\/[a-z-]+\.example\.com\/\.well-known\/agent-card\.json$/);
  });

  test("addresses are fixed (derived from SAMPLE_KEY_SEED): the README's payable agent and merchant", async () => {
    expect(samples.payable.nftMint).toBe("7ChibyJdgvp2tmi9x714D3gPPU3LpotuaJqYSvgn2AYY" as Address);
    expect(samples.payable.owner).toBe("5hisDHGD1hLzUduMsYXV2FsmFrw9KarebiwmjPm6cs53" as Address);
    expect(agents.map((a) => a.nftMint).sort()).toEqual(samples.agents.map((a) => a.nftMint).sort());
  });

  test("every account is owned by the program, rent-exempt, at the PDA pdas.ts derives, and decodes with the IDL codecs", async () => {
    for (const sample of samples.agents) {
      const [agentPda] = await findAgentPda(PROGRAM_ID, sample.nftMint);
      const account = await service.ledger.getAccount(agentPda);
      expect(account?.owner).toBe(PROGRAM_ID);
      expect(account?.lamports).toBe(service.embeddedLedger?.getMinimumBalanceForRentExemption(BigInt(account?.data.length ?? 0)));
      const identity = decodeAgentIdentity(account?.data ?? new Uint8Array());
      expect(identity.ok && identity.value.nftMint).toBe(sample.nftMint);

      for (const item of await get<Service[]>(service, `/agents/${sample.nftMint}/services`)) {
        if (!isServiceType(item.serviceType)) throw new Error(`unknown service type ${item.serviceType}`);
        const [servicePda] = await findServicePda(PROGRAM_ID, sample.nftMint, item.serviceType);
        expect(item.address).toBe(servicePda);
        const decoded = decodeAgentService((await service.ledger.getAccount(servicePda))?.data ?? new Uint8Array());
        expect(decoded.ok && decoded.value.endpoint).toBe(item.endpoint);
      }
      for (const item of await get<Feedback[]>(service, `/agents/${sample.nftMint}/feedback`)) {
        const raw = await service.ledger.getAccount(item.address);
        const decoded = decodeFeedbackEntry(raw?.data ?? new Uint8Array());
        if (!decoded.ok) throw new Error(`feedback ${item.address} does not decode`);
        const [feedbackPda] = await findFeedbackPda(PROGRAM_ID, sample.nftMint, decoded.value.reviewer, decoded.value.createdAt);
        expect(item.address).toBe(feedbackPda);
        expect(raw?.owner).toBe(PROGRAM_ID);
      }
    }
  });

  test("each agent's reputation counters are what its feedback entries say; verified entries carry the payment proof", async () => {
    let verifiedSeen = 0;
    for (const agent of agents) {
      const feedback = await get<Feedback[]>(service, `/agents/${agent.nftMint}/feedback`);
      expect(feedback.length).toBeGreaterThan(0);
      const verified = feedback.filter((f) => f.hasPaymentProof);
      const unverified = feedback.filter((f) => !f.hasPaymentProof);
      const avg = (entries: Feedback[]) => (entries.length === 0 ? 0 : entries.reduce((s, f) => s + f.score, 0) / entries.length);
      expect(agent.reputation).toMatchObject({ verifiedCount: verified.length, unverifiedCount: unverified.length, validationCount: 0 });
      expect(agent.reputation["verifiedAvgScore"]).toBeCloseTo(avg(verified), 9);
      expect(agent.reputation["unverifiedAvgScore"]).toBeCloseTo(avg(unverified), 9);
      for (const f of verified) {
        expect(Number(f.paymentAmount)).toBeGreaterThan(0);
        expect(f.paymentToken).toBe(USDC);
      }
      for (const f of unverified) expect(Number(f.paymentAmount)).toBe(0);
      verifiedSeen += verified.length;
    }
    expect(verifiedSeen).toBeGreaterThan(0);
  });

  test(`the payable agent: found by GET /agents?q=${PAYABLE_SAMPLE_HOST}, an active api service, its owner holds SOL and a USDC token account`, async () => {
    const found = (await get<{ data: Agent[] }>(service, `/agents?q=${PAYABLE_SAMPLE_HOST}`)).data;
    expect(found.map((a) => a.nftMint)).toEqual([samples.payable.nftMint]);
    const services = await get<Service[]>(service, `/agents/${samples.payable.nftMint}/services`);
    expect(services.filter((s) => s.active).map((s) => s.serviceType).sort()).toEqual(["a2a", "api", "mcp"]);
    for (const s of services) expect(new URL(s.endpoint).hostname).toBe(PAYABLE_SAMPLE_HOST);

    const owner = samples.payable.owner;
    expect((await service.ledger.getAccount(owner))?.lamports).toBe(1_000_000_000n);
    const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const token = service.embeddedLedger?.getTokenAccountBalance(ata);
    const feedback = await get<Feedback[]>(service, `/agents/${samples.payable.nftMint}/feedback?verified=true`);
    // What it holds is what its verified feedback says it was paid.
    expect(token?.amount).toBe(BigInt(feedback.reduce((s, f) => s + Number(f.paymentAmount), 0)));
    // No other sample owner holds USDC: the payable agent is the one that can be paid.
    for (const other of samples.agents.filter((a) => a !== samples.payable)) {
      const [otherAta] = await findAssociatedTokenPda({ owner: other.owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      expect(await service.ledger.getAccount(otherAta)).toBeNull();
    }
  });
});

describe("SEED_SAMPLE_AGENTS (whole service on the embedded litesvm ledger; a real child process for the refusal)", () => {
  test("false: the embedded registry starts empty", async () => {
    const service = await startService({ SEED_SAMPLE_AGENTS: "false" });
    try {
      expect((await get<{ data: Agent[] }>(service, "/agents")).data).toEqual([]);
    } finally {
      await service.dispose();
    }
  }, 30_000);

  test("true with SOLANA_RPC_URL: the real process (bun src/main.ts) stops at boot, exit 1, with a message naming both settings", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "seed-refused-"));
    try {
      const child = Bun.spawn([BUN, "src/main.ts"], {
        cwd: ROOT,
        env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", DATA_DIR: dataDir, SEED_SAMPLE_AGENTS: "true", SOLANA_RPC_URL: "http://127.0.0.1:1", REGISTRY_PORT: "0", FACILITATOR_PORT: "0" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, exitCode] = await Promise.all([
        new Response(child.stdout as ReadableStream<Uint8Array>).text(),
        new Response(child.stderr as ReadableStream<Uint8Array>).text(),
        child.exited,
      ]);
      expect(exitCode).toBe(1);
      const line = `${stdout}${stderr}`.split("\n").find((l) => l.includes("start-up failed")) ?? "";
      expect(JSON.parse(line)).toMatchObject({ level: "error", msg: "start-up failed" });
      expect(line).toContain("SEED_SAMPLE_AGENTS: sample agents are written only to the embedded ledger");
      expect(line).toContain("SOLANA_RPC_URL");
      expect(`${stdout}${stderr}`).not.toContain('"msg":"ready"');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
