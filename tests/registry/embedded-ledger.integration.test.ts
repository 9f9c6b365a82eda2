import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { Address } from "@solana/kit";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { encodeAgentIdentity, type AgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { encodeAgentService, SERVICE_TYPES, type AgentService } from "../../src/domain/registry/agent-service.ts";
import { categoryHash, createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { encodeFeedbackEntry, type FeedbackEntry } from "../../src/domain/registry/feedback-entry.ts";
import { findAgentPda, findFeedbackPda, findServicePda } from "../../src/domain/registry/pdas.ts";
import { errorLayer } from "../../src/http/error-layer.ts";
import { registryRoutes } from "../../src/http/registry/registry-routes.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createLedgerRpcHandler } from "@x84/embedded-ledger";
import { serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type LedgerRpcServer } from "@x84/embedded-ledger";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { createAgentIndex, type LiveAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { createLocalProgramFeed } from "../../src/infrastructure/ledger/local-program-feed.ts";
import { createRpcProgramFeed } from "../../src/infrastructure/ledger/rpc-program-feed.ts";
import { systemClock } from "../../src/application/ports/clock.ts";
import { createRpcProgramAccountReader } from "../../src/infrastructure/registry/rpc-program-account-reader.ts";
import { LedgerError } from "../../src/application/ports/ledger.ts";
import { createManualClock } from "./support/manual-clock.ts";
import { agentIdentity, agentService, feedbackEntry, hashBytes, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

/**
 * Real pieces: the embedded litesvm ledger, seeded only through its JSON-RPC `surfnet_setAccount`
 * cheat code, accounts at their real PDAs with Anchor-style padding, read back by the agent index
 * and served through the registry routes. The index's clock is a manual clock.
 */
const AGENT_COUNT = 36;
const AGENT_SPACE = 8 + 32 + 32 + 8 + 32 + (4 + 200) + 32 + (4 + 5 * 32) + 1 + 8 * 8 + 1;

const ledger = createLocalLedger();
const rpc = createLedgerRpcHandler(ledger);
let rpcId = 0;

async function setAccount(address: Address, data: Uint8Array): Promise<void> {
  const response = await rpc(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "surfnet_setAccount", params: [address, { lamports: 5_000_000, owner: PROGRAM_ID, data: Buffer.from(data).toString("hex") }] }),
    }),
  );
  const body = (await response.json()) as { error?: unknown };
  if (body.error) throw new Error(`surfnet_setAccount failed: ${JSON.stringify(body.error)}`);
}

const OWNERS = [testAddress(2, 0), testAddress(2, 1), testAddress(2, 2)];
const TAG_SETS = [["defi"], ["trading", "data"], [], ["research", "defi", "custom-tag"]];

function seededAgent(n: number): AgentIdentity {
  return agentIdentity(n, {
    owner: OWNERS[n % 3] as Address,
    // Several agents share an updatedAt so the nftMint tie-break matters.
    updatedAt: 1_750_000_000n + BigInt(Math.floor(n / 4)),
    active: n % 5 !== 0,
    metadataUri: n % 6 === 0 ? `ipfs://Qm${n}Mirror` : `https://agents.example/${n}/card.json`,
    tags: (TAG_SETS[n % 4] as string[]).map(hashBytes),
    verifiedFeedbackCount: BigInt(n % 3),
    verifiedScoreSum: BigInt((n % 3) * 80),
  });
}

const agents: AgentIdentity[] = Array.from({ length: AGENT_COUNT }, (_, n) => seededAgent(n));
const star = agents[7] as AgentIdentity;
const feedback: FeedbackEntry[] = Array.from({ length: 6 }, (_, n) => feedbackEntry(star.nftMint, n, { revoked: n === 5 }));
const services: AgentService[] = SERVICE_TYPES.map((type, i) => agentService(star.nftMint, type, { active: i !== 2, createdAt: 1_700_000_000n + BigInt(i) }));

async function seedAgent(agent: AgentIdentity): Promise<void> {
  const [pda] = await findAgentPda(PROGRAM_ID, agent.nftMint);
  await setAccount(pda, padded(encodeAgentIdentity(agent), AGENT_SPACE));
}

beforeAll(async () => {
  for (const agent of agents) await seedAgent(agent);
  for (const entry of feedback) {
    const [pda] = await findFeedbackPda(PROGRAM_ID, entry.nftMint, entry.reviewer, entry.createdAt);
    await setAccount(pda, encodeFeedbackEntry(entry));
  }
  for (const service of services) {
    const [pda] = await findServicePda(PROGRAM_ID, service.nftMint, service.serviceType);
    await setAccount(pda, padded(encodeAgentService(service), 8 + 32 + 1 + 204 + 24 + 1 + 16 + 1));
  }
  // Noise the index must ignore: another program's account, and a registry account of another kind.
  await rpc(new Request("http://localhost/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "surfnet_setAccount", params: [testAddress(8, 1), { lamports: 1, owner: testAddress(8, 2), data: Buffer.from(encodeAgentIdentity(seededAgent(99))).toString("hex") }] }) }));
  await setAccount(testAddress(8, 3), new Uint8Array([168, 198, 209, 4, 60, 235, 126, 109, 1, 2, 3]));
});

// Created once the ledger is seeded (the index loads at once), following the ledger's writes
// through its in-process programSubscribe feed.
let index: LiveAgentIndex;
let app: { handle(request: Request): Promise<Response> };
beforeAll(async () => {
  index = createAgentIndex({ ledger, clock: systemClock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger) });
  await index.ready();
  app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }));
});
afterAll(async () => {
  await index.close();
});

/** Polls (real time, at most 2 s) until `check` holds; returns how long it took. */
async function within2s(check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > 2_000) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

async function getJson(path: string) {
  const response = await app.handle(new Request(`http://localhost${path}`));
  return { status: response.status, body: await response.json() };
}

async function pageAll(query: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const sep = query === "" ? "" : "&";
    const { status, body } = await getJson(`/agents?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(status).toBe(200);
    expect(body.data.length).toBeLessThanOrEqual(limit);
    seen.push(...body.data.map((a: { nftMint: string }) => a.nftMint));
    expect(body.cursor.hasMore).toBe(body.cursor.next !== null);
    if (!body.cursor.hasMore) return seen;
    cursor = body.cursor.next;
  }
  throw new Error("paging did not end");
}

function expected(predicate: (a: AgentIdentity) => boolean): string[] {
  return agents
    .filter(predicate)
    .sort((a, b) => (a.updatedAt !== b.updatedAt ? (a.updatedAt > b.updatedAt ? -1 : 1) : a.nftMint > b.nftMint ? -1 : a.nftMint < b.nftMint ? 1 : 0))
    .map((a) => a.nftMint);
}

const hasTag = (a: AgentIdentity, name: string) => a.tags.some((t) => Buffer.from(t).toString("hex") === categoryHash(name));

describe("registry read API on the embedded ledger (litesvm), seeded via surfnet_setAccount", () => {
  test("every filter, paged at several page sizes: right order, no duplicates, no omissions", async () => {
    const cases: [string, (a: AgentIdentity) => boolean][] = [
      ["", () => true],
      ["active=true", (a) => a.active],
      ["active=false", (a) => !a.active],
      [`owner=${OWNERS[1]}`, (a) => a.owner === OWNERS[1]],
      ["category=defi", (a) => hasTag(a, "defi")],
      ["category=DATA", (a) => hasTag(a, "data")],
      ["category=custom-tag", (a) => hasTag(a, "custom-tag")],
      ["q=mirror", (a) => a.metadataUri.toLowerCase().includes("mirror")],
      ["q=AGENTS.EXAMPLE/2", (a) => a.metadataUri.includes("agents.example/2")],
      [`active=true&category=defi&owner=${OWNERS[0]}`, (a) => a.active && hasTag(a, "defi") && a.owner === OWNERS[0]],
    ];
    for (const [query, predicate] of cases) {
      const want = expected(predicate);
      expect(want.length).toBeGreaterThan(0);
      for (const limit of [1, 3, 7, 20, 100]) {
        const got = await pageAll(query, limit);
        expect({ query, limit, got }).toEqual({ query, limit, got: want });
      }
    }
  });

  test("detail, feedback and services of a seeded agent", async () => {
    const [pda] = await findAgentPda(PROGRAM_ID, star.nftMint);
    const detail = await getJson(`/agents/${star.nftMint}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ address: pda, nftMint: star.nftMint, owner: star.owner, tags: ["research", "defi", categoryHash("custom-tag")], reputation: { verifiedCount: 1, verifiedAvgScore: 80 } });
    expect(detail.body.services.length).toBe(4);

    const listed = await getJson(`/agents/${star.nftMint}/feedback`);
    expect(listed.body.map((f: { createdAt: string }) => f.createdAt)).toEqual(feedback.filter((f) => !f.revoked).map((f) => new Date(Number(f.createdAt) * 1000).toISOString()).reverse());
    const [firstPda] = await findFeedbackPda(PROGRAM_ID, star.nftMint, (feedback[4] as FeedbackEntry).reviewer, (feedback[4] as FeedbackEntry).createdAt);
    expect(listed.body[0].address).toBe(firstPda);
    expect((await getJson(`/agents/${star.nftMint}/feedback?includeRevoked=true`)).body.length).toBe(6);
    expect((await getJson(`/agents/${star.nftMint}/feedback?verified=true`)).body.length).toBe(3);
    expect((await getJson(`/agents/${star.nftMint}/feedback?reviewer=${testAddress(4, 0)}&includeRevoked=true`)).body.length).toBe(2);

    const svc = await getJson(`/agents/${star.nftMint}/services`);
    expect(svc.body.map((s: { serviceType: string }) => s.serviceType)).toEqual(["web", "api", "a2a", "mcp"]);
    expect((await getJson(`/agents/${star.nftMint}/services?active=false`)).body.map((s: { serviceType: string }) => s.serviceType)).toEqual(["api"]);
    expect((await getJson(`/agents/${star.nftMint}/services?serviceType=a2a`)).body.length).toBe(1);
  });

  test("an on-chain change (updated_at bumped, agent deactivated) shows within 2 s, through the ledger's programSubscribe, with no full read", async () => {
    const top = (await getJson("/agents?limit=1")).body.data[0].nftMint;
    const bumped = { ...(agents[3] as AgentIdentity), updatedAt: 1_760_000_000n };
    const deactivated = { ...(agents[1] as AgentIdentity), active: false };
    const lastFullRead = index.health().lastRefreshAt;
    expect(top).not.toBe(bumped.nftMint);
    await seedAgent(bumped);
    await seedAgent(deactivated);
    const took = await within2s(async () => (await getJson("/agents?limit=1")).body.data[0].nftMint === bumped.nftMint && (await getJson(`/agents/${deactivated.nftMint}`)).body.active === false);
    expect(took).toBeLessThan(2_000);
    expect(index.health().lastRefreshAt).toBe(lastFullRead);
    agents[3] = bumped;
    agents[1] = deactivated;
  });
});

describe("agent index over JSON-RPC (rpc-ledger -> embedded ledger served on a random port)", () => {
  let server: LedgerRpcServer;
  beforeAll(() => {
    server = serveLocalLedgerRpc(ledger, { port: 0 });
  });
  afterAll(async () => {
    await server.stop();
  });

  test("getProgramAccounts with memcmp filters over the wire gives the same model", async () => {
    const overRpc = createAgentIndex({ ledger: createRpcLedger({ url: server.url }), clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
    afterAll(() => overRpc.close());
    const page = await overRpc.listAgents({ limit: 100 });
    expect(page.items.map((r): string => r.identity.nftMint)).toEqual(expected(() => true));
    const owned = await overRpc.agentsOwnedBy(OWNERS[2] as Address);
    expect(owned.map((r): string => r.identity.nftMint)).toEqual(expected((a) => a.owner === OWNERS[2]));
    expect((await overRpc.listServices(star.nftMint, {}))?.length).toBe(4);
    expect(overRpc.health().status).toBe("ok");
  });

  test("full reads parsed in a Worker give the same accounts as the JSON-RPC ledger, and the same model", async () => {
    const reader = createRpcProgramAccountReader({ url: server.url });
    const rpcLedger = createRpcLedger({ url: server.url });
    for (const filters of [[], [{ memcmp: { offset: 0, bytes: new Uint8Array([11, 149, 31, 27, 186, 76, 241, 72]) } }], [{ dataSize: 82 }]]) {
      const byWorker = (await reader(PROGRAM_ID, filters)).map((a) => [a.address, a.owner, [...a.data]]);
      const byKit = (await rpcLedger.getProgramAccounts(PROGRAM_ID, filters)).map((a) => [a.address, a.owner, [...a.data]]);
      expect(byWorker).toEqual(byKit);
    }
    const overWorker = createAgentIndex({ ledger: rpcLedger, readProgramAccounts: reader, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
    afterAll(() => overWorker.close());
    expect((await overWorker.listAgents({ limit: 100 })).items.map((r): string => r.identity.nftMint)).toEqual(expected(() => true));
    expect((await overWorker.listServices(star.nftMint, {}))?.length).toBe(4);
  });

  test("over JSON-RPC and the node's WebSocket pubsub: the index loads once, then a change shows within 2 s without another full read", async () => {
    const reads: number[] = [];
    const reader = createRpcProgramAccountReader({ url: server.url });
    const feed = createRpcProgramFeed({ url: server.wsUrl, logger: silentLogger });
    const overWs = createAgentIndex({
      ledger: createRpcLedger({ url: server.url }),
      readProgramAccounts: async (program, filters) => {
        reads.push(performance.now());
        return reader(program, filters);
      },
      feed,
      clock: systemClock,
      programId: PROGRAM_ID,
      ttlMs: 30_000,
      logger: silentLogger,
    });
    try {
      await overWs.ready();
      expect(reads.length).toBe(3);
      await within2s(async () => overWs.health().feed === "live");
      expect(overWs.health().feed).toBe("live");
      const renamed = { ...(agents[5] as AgentIdentity), metadataUri: "https://renamed.example/5/card.json", updatedAt: 1_770_000_000n };
      await seedAgent(renamed);
      const took = await within2s(async () => (await overWs.getAgent(renamed.nftMint))?.identity.metadataUri === renamed.metadataUri);
      expect(took).toBeLessThan(2_000);
      expect((await overWs.listAgents({ limit: 1 })).items[0]?.identity.nftMint).toBe(renamed.nftMint);
      expect(reads.length).toBe(3);
      agents[5] = renamed;
    } finally {
      await overWs.close();
    }
  });

  test("a node that cannot be reached is an unavailable LedgerError without the URL's secret", async () => {
    const reader = createRpcProgramAccountReader({ url: "http://127.0.0.1:1/?api-key=SECRET123", timeoutMs: 5_000 });
    const error = await reader(PROGRAM_ID, []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).kind).toBe("unavailable");
    expect((error as LedgerError).message).not.toContain("SECRET123");
  });
});

