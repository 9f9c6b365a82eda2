/**
 * Benchmark of the registry read API at 10,000 indexed agents.
 *
 *   npm run bench:registry            (BENCH_SECONDS=5 BENCH_CONCURRENCY=64 to tune)
 *
 * Seeds 10,000 AgentIdentity accounts (real byte layout, Anchor padding) into the embedded
 * litesvm ledger, measures the index refresh (getProgramAccounts + decode + sort + indexes),
 * then serves the registry routes with Bun.serve on a random port and loads GET /agents with
 * concurrent fetches for a bounded time per scenario. The load generator runs in a Worker so
 * it does not share the server's event loop. Last, GET /users/me with a bearer token for a wallet
 * owning 20 of the agents (JWT check, PGlite user read, owner-filtered getProgramAccounts).
 */
import { heapStats } from "bun:jsc";
import { Elysia } from "elysia";
import { getAddressDecoder, type Address } from "@solana/kit";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { AGENT_IDENTITY_DISCRIMINATOR, encodeAgentIdentity, type AgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { categoryHash, createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../src/domain/registry/pdas.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { registryRoutes } from "../src/http/registry/registry-routes.ts";
import { createEmbeddedLedger } from "../src/infrastructure/ledger/embedded/embedded-ledger.ts";
import { createAgentIndex } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPairSigner, getBase58Decoder, signBytes } from "@solana/kit";
import { createAuth } from "../src/auth-composition.ts";
import { authRoutes } from "../src/http/registry/auth-routes.ts";
import { usersRoutes } from "../src/http/registry/users-routes.ts";
import { parseAppConfig } from "../src/infrastructure/config/app-config.ts";
import { openStore } from "../src/infrastructure/store/index.ts";
import { createSqlWindowCounters } from "../src/infrastructure/store/sql-window-counters.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const AGENT_SPACE = 8 + 32 + 32 + 8 + 32 + 204 + 32 + 164 + 1 + 64 + 1;
const programId = DEFAULT_REGISTRY_PROGRAM_ID;

function address(label: number, n: number): Address {
  const bytes = new Uint8Array(32);
  bytes[0] = label;
  new DataView(bytes.buffer).setUint32(1, n, true);
  return getAddressDecoder().decode(bytes);
}

const tagBytes = (name: string) => Uint8Array.from(categoryHash(name).match(/../g) ?? [], (h) => parseInt(h, 16));
const TAGS = DEFAULT_CATEGORY_NAMES.map(tagBytes);

function agent(n: number): AgentIdentity {
  return {
    nftMint: address(1, n),
    owner: address(2, n % 500),
    ownerVersion: 1n,
    feedbackAuthority: address(3, n),
    metadataUri: `https://agents.example/${n}/agent-card.json`,
    metadataHash: new Uint8Array(32),
    tags: [TAGS[n % TAGS.length] as Uint8Array, TAGS[(n * 7) % TAGS.length] as Uint8Array],
    active: n % 10 !== 0,
    createdAt: 1_700_000_000n + BigInt(n),
    updatedAt: 1_700_000_000n + BigInt(n % 3000),
    verifiedFeedbackCount: BigInt(n % 7),
    verifiedScoreSum: BigInt((n % 7) * 75),
    unverifiedFeedbackCount: 1n,
    unverifiedScoreSum: 50n,
    validationCount: 0n,
    delegationCount: 0n,
    bump: 255,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const ledger = createEmbeddedLedger();
  const seedStart = performance.now();
  for (let n = 0; n < AGENTS; n++) {
    const data = new Uint8Array(AGENT_SPACE);
    data.set(encodeAgentIdentity(agent(n)));
    ledger.setAccount(address(9, n), { lamports: 3_000_000n, owner: programId, data });
  }
  const seedMs = performance.now() - seedStart;
  const rssBefore = process.memoryUsage().rss;

  const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 30_000, logger: silentLogger });
  // Cold: every account decoded. Warm: unchanged accounts reuse their decoded record.
  const coldStart = performance.now();
  await index.refresh();
  const coldMs = performance.now() - coldStart;
  const warmMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await index.refresh();
    warmMs.push(performance.now() - t);
  }
  warmMs.sort((a, b) => a - b);
  const gpaStart = performance.now();
  await ledger.getProgramAccounts(programId, [{ memcmp: { offset: 0, bytes: new Uint8Array(AGENT_IDENTITY_DISCRIMINATOR) } }]);
  const gpaMs = performance.now() - gpaStart;
  Bun.gc(true);
  const rssIndexed = process.memoryUsage().rss;
  const heapIndexed = heapStats().heapSize;

  const signedIn = await signedInUser(ledger, index);
  const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }))
    .use(authRoutes(signedIn.auth)).use(usersRoutes(signedIn.auth));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.handle(request) });
  const base = `http://127.0.0.1:${server.port}`;

  const page2 = (await (await fetch(`${base}/agents?limit=20`)).json()) as { cursor: { next: string } };
  const scenarios: [string, string][] = [
    ["no filter", "/agents"],
    ["limit=100", "/agents?limit=100"],
    ["active=true", "/agents?active=true"],
    ["category=defi", "/agents?category=defi"],
    ["owner", `/agents?owner=${address(2, 42)}`],
    ["q (substring)", "/agents?q=/77"],
    ["combined", `/agents?active=true&category=trading&q=agent-card`],
    ["cursor page 2", `/agents?cursor=${page2.cursor.next}`],
    ["detail", `/agents/${address(1, 1234)}`],
  ];

  const authorization = { authorization: `Bearer ${await signedIn.token(base)}` };
  const rows: Record<string, string | number>[] = [];
  for (const [name, path, headers] of [...scenarios, ["/users/me (20 agents)", "/users/me", authorization] as const]) {
    const result = await loadInWorker(`${base}${path}`, headers);
    rows.push({
      scenario: name,
      "req/s": Math.round(result.count / SECONDS),
      "p50 ms": percentile(result.latencies, 50).toFixed(2),
      "p99 ms": percentile(result.latencies, 99).toFixed(2),
      errors: result.errors,
    });
  }
  await server.stop(true);
  await signedIn.close();

  console.log(`\nregistry bench: ${AGENTS} agents, ${CONCURRENCY} concurrent fetches, ${SECONDS}s per scenario (Bun ${Bun.version})\n`);
  console.table(rows);
  console.table([
    { metric: "seed via setAccount", value: `${seedMs.toFixed(0)} ms` },
    { metric: "refresh, cold (all decoded)", value: `${coldMs.toFixed(0)} ms` },
    { metric: "refresh, warm (min / median / max of 5)", value: `${warmMs[0]?.toFixed(0)} / ${warmMs[2]?.toFixed(0)} / ${warmMs[4]?.toFixed(0)} ms` },
    { metric: "  of which embedded getProgramAccounts", value: `${gpaMs.toFixed(0)} ms` },
    { metric: "JS heap with index built", value: mb(heapIndexed) },
    { metric: "RSS after seeding", value: mb(rssBefore) },
    { metric: "RSS with index built", value: mb(rssIndexed) },
    { metric: "RSS after load", value: mb(process.memoryUsage().rss) },
  ]);
}

type LoadResult = { count: number; errors: number; latencies: number[] };

/** Runs the closed-loop load generator in a Worker for SECONDS and returns its measurements. */
function loadInWorker(url: string, headers?: Record<string, string>): Promise<LoadResult> {
  const worker = new Worker(new URL("./registry-load-worker.ts", import.meta.url).href);
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<LoadResult>) => {
      worker.terminate();
      const latencies = event.data.latencies.sort((a, b) => a - b);
      resolve({ ...event.data, latencies });
    };
    worker.onerror = (error) => {
      worker.terminate();
      reject(error);
    };
    worker.postMessage({ url, seconds: SECONDS, concurrency: CONCURRENCY, headers });
  });
}

/** The real auth composition on in-memory PGlite, and a wallet that owns 20 seeded agents. */
async function signedInUser(ledger: ReturnType<typeof createEmbeddedLedger>, index: ReturnType<typeof createAgentIndex>) {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-auth-"));
  const parsed = parseAppConfig({ DATA_DIR: dataDir, AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000" });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const store = await openStore({ inMemory: true });
  const auth = await createAuth(parsed.config, { executor: store.executor, index, counters: createSqlWindowCounters(store.executor, "bench"), clock: systemClock, logger: silentLogger });
  const wallet = await generateKeyPairSigner();
  for (let n = 0; n < 20; n++) {
    const data = new Uint8Array(AGENT_SPACE);
    data.set(encodeAgentIdentity({ ...agent(AGENTS + n), nftMint: address(8, n), owner: wallet.address }));
    ledger.setAccount(address(7, n), { lamports: 3_000_000n, owner: programId, data });
  }
  const post = async (base: string, path: string, body: unknown) =>
    (await (await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as Record<string, string>;
  return {
    auth,
    async token(base: string): Promise<string> {
      const { message = "" } = await post(base, "/auth/challenge", { address: wallet.address });
      const signature = getBase58Decoder().decode(await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(message)));
      return (await post(base, "/auth/token", { address: wallet.address, message, signature }))["accessToken"] ?? "";
    },
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

await main();
