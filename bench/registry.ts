/**
 * Benchmark of the registry read API over the embedded ledger.
 *
 *   npm run bench:registry                                   10,000 agents, TTL 30 s
 *   BENCH_AGENTS=100000 BENCH_TTL_SECONDS=3 BENCH_CHURN=200 npm run bench:registry
 *                                                            100,000 agents, a refresh every ~2 s
 *                                                            with 200 agents changed per second
 *   (BENCH_SECONDS=4 BENCH_CONCURRENCY=64 to tune)
 *
 * Seeds AgentIdentity accounts (real byte layout, Anchor padding) into the embedded litesvm
 * ledger and measures the index refresh in isolation: cold, warm with nothing changed, warm with 1%
 * changed (the catalog is updated) and with 20% changed (rebuilt). Each row gives the wall time,
 * the event-loop time of the index's own sliced work, the longest slice (how long a request can
 * wait behind it), the ledger read and the process CPU.
 *
 * Then it serves the registry routes with Bun.serve on a random port and loads them with a
 * closed-loop generator in a separate process (so RSS and the event loop are the server's only),
 * for a bounded time per scenario. With BENCH_CHURN, agents are rewritten with a new updated_at
 * during the load, so the refreshes that run meanwhile (counted per scenario) have work to do.
 * Last, GET /users/me with a bearer token for a wallet owning 20 of the agents (JWT check, PGlite
 * user read, owner-filtered getProgramAccounts at most twice a second, else the index).
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import { Elysia } from "elysia";
import { getAddressDecoder, type Address } from "@solana/kit";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { AGENT_IDENTITY_DISCRIMINATOR, encodeAgentIdentity, type AgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { categoryHash, createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../src/domain/registry/pdas.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { registryRoutes } from "../src/http/registry/registry-routes.ts";
import { createEmbeddedLedger, type EmbeddedLedger } from "../src/infrastructure/ledger/embedded/embedded-ledger.ts";
import { createAgentIndex, type RefreshReport } from "../src/infrastructure/registry/ledger-agent-index.ts";
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
const TTL_SECONDS = Number(process.env.BENCH_TTL_SECONDS ?? 30);
const CHURN = Number(process.env.BENCH_CHURN ?? 0);
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

function agent(n: number, version = 0): AgentIdentity {
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
    updatedAt: 1_700_000_000n + BigInt(n % 3000) + BigInt(version) * 10_000n,
    verifiedFeedbackCount: BigInt(n % 7),
    verifiedScoreSum: BigInt((n % 7) * 75),
    unverifiedFeedbackCount: 1n,
    unverifiedScoreSum: 50n,
    validationCount: 0n,
    delegationCount: 0n,
    bump: 255,
  };
}

function writeAgent(ledger: EmbeddedLedger, n: number, version = 0): void {
  const data = new Uint8Array(AGENT_SPACE);
  data.set(encodeAgentIdentity(agent(n, version)));
  ledger.setAccount(address(9, n), { lamports: 3_000_000n, owner: programId, data });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0);
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

async function main(): Promise<void> {
  const loadAtStart = load();
  const ledger = createEmbeddedLedger();
  const seedStart = performance.now();
  for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
  const seedMs = performance.now() - seedStart;
  const rssSeeded = process.memoryUsage().rss;

  const reports: (RefreshReport & { at: number })[] = [];
  const index = createAgentIndex({
    ledger,
    clock: systemClock,
    programId,
    ttlMs: TTL_SECONDS * 1000,
    logger: silentLogger,
    onRefresh: (report) => reports.push({ ...report, at: performance.now() }),
  });

  // The refresh in isolation (no load): what it costs and how long it can hold the event loop.
  let version = 1;
  const refreshRows: Record<string, string | number>[] = [];
  async function measureRefresh(name: string, change: () => void): Promise<void> {
    change();
    const before = reports.length;
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await index.refresh();
    const wallMs = performance.now() - wall;
    const used = process.cpuUsage(cpu);
    // Code without refresh reports (an older index, for before/after runs of this file) shows wall and CPU only.
    const report = reports.length > before ? reports.at(-1) : undefined;
    refreshRows.push({
      refresh: name,
      "wall ms": ms(wallMs),
      "index busy ms": report ? ms(report.busyMs) : "-",
      "longest slice ms": report ? ms(report.longestSliceMs) : "-",
      "ledger read ms": report ? ms(report.readMs) : "-",
      "process CPU ms": ms((used.user + used.system) / 1000),
      changed: report ? report.changed : "-",
    });
  }
  const rewrite = (share: number) => () => {
    const step = Math.max(1, Math.round(1 / share));
    for (let n = 0; n < AGENTS; n += step) writeAgent(ledger, n, version);
    version++;
  };
  await measureRefresh("cold (all decoded, catalog built)", () => {});
  for (let i = 0; i < 3; i++) await measureRefresh("warm, nothing changed", () => {});
  for (let i = 0; i < 3; i++) await measureRefresh("warm, 1% changed (catalog updated)", rewrite(0.01));
  for (let i = 0; i < 2; i++) await measureRefresh("warm, 20% changed (catalog rebuilt)", rewrite(0.2));
  const gpaStart = performance.now();
  await ledger.getProgramAccounts(programId, [{ memcmp: { offset: 0, bytes: new Uint8Array(AGENT_IDENTITY_DISCRIMINATOR) } }]);
  const gpaMs = performance.now() - gpaStart;
  Bun.gc(true);
  const rssIndexed = process.memoryUsage().rss;
  const heapIndexed = heapStats().heapSize;

  const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }));
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

  // Churn: agents rewritten with a newer updated_at, in batches every 100 ms, during the load.
  let churned = 0;
  const churn = CHURN > 0
    ? setInterval(() => {
        for (let i = 0; i < CHURN / 10; i++) writeAgent(ledger, (churned++ * 7919) % AGENTS, version + churned);
      }, 100)
    : null;
  let rssPeak = 0;
  const rssSampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);

  const rows: Record<string, string | number>[] = [];
  async function run(name: string, url: string, headers?: Record<string, string>): Promise<void> {
    const started = performance.now();
    const result = await loadInProcess(url, headers);
    const during = reports.filter((r) => r.at >= started);
    rows.push({
      scenario: name,
      "req/s": Math.round(result.count / SECONDS),
      "p50 ms": percentile(result.latencies, 50).toFixed(2),
      "p99 ms": percentile(result.latencies, 99).toFixed(2),
      "max ms": percentile(result.latencies, 100).toFixed(1),
      errors: result.errors,
      refreshes: during.length,
      "longest slice ms": during.length ? ms(Math.max(...during.map((r) => r.longestSliceMs))) : "-",
    });
  }
  for (const [name, path] of scenarios) await run(name, `${base}${path}`);
  const rssPeakRegistry = rssPeak;
  const rssAfterRegistry = process.memoryUsage().rss;

  // /users/me needs the auth composition, whose in-memory PGlite alone takes a few hundred MB of
  // RSS: it starts only now, so the figures above are the registry's.
  const signedIn = await signedInUser(ledger, index);
  const usersApp = new Elysia().use(errorLayer(silentLogger)).use(authRoutes(signedIn.auth)).use(usersRoutes(signedIn.auth));
  const usersServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => usersApp.handle(request) });
  const usersBase = `http://127.0.0.1:${usersServer.port}`;
  await run("/users/me (20 agents)", `${usersBase}/users/me`, { authorization: `Bearer ${await signedIn.token(usersBase)}` });
  await usersServer.stop(true);
  if (churn) clearInterval(churn);
  clearInterval(rssSampler);
  await server.stop(true);
  await signedIn.close();
  const duringLoad = reports.filter((r) => r.kind === "agents").slice(refreshRows.length);
  const busy = duringLoad.map((r) => r.busyMs).sort((a, b) => a - b);

  console.log(`\nregistry bench: ${AGENTS} agents, ${CONCURRENCY} concurrent fetches from another process, ${SECONDS}s per scenario, TTL ${TTL_SECONDS}s, churn ${CHURN} agents/s (Bun ${Bun.version})`);
  console.log(`load average at start ${loadAtStart}, at end ${load()} (2 cores)\n`);
  console.table(refreshRows);
  console.table(rows);
  console.table([
    { metric: "seed via setAccount", value: `${seedMs.toFixed(0)} ms` },
    { metric: "embedded getProgramAccounts (agents, warm)", value: `${gpaMs.toFixed(0)} ms` },
    { metric: "agent refreshes during the load", value: `${duringLoad.length}, index busy median ${ms(percentile(busy, 50))} ms, max ${ms(busy.at(-1) ?? 0)} ms` },
    { metric: "agents rewritten during the load", value: `${churned}` },
    { metric: "JS heap with index built", value: mb(heapIndexed) },
    { metric: "RSS after seeding", value: mb(rssSeeded) },
    { metric: "RSS with index built", value: mb(rssIndexed) },
    { metric: "RSS peak during the registry scenarios", value: mb(rssPeakRegistry) },
    { metric: "RSS after the registry scenarios", value: mb(rssAfterRegistry) },
    { metric: "RSS peak with /users/me (adds PGlite)", value: mb(rssPeak) },
  ]);
}

type LoadResult = { count: number; errors: number; latencies: number[] };

/** Runs the closed-loop load generator in its own process for SECONDS and returns its measurements. */
async function loadInProcess(url: string, headers?: Record<string, string>): Promise<LoadResult> {
  const child = Bun.spawn([process.execPath, new URL("./registry-load-worker.ts", import.meta.url).pathname, JSON.stringify({ url, seconds: SECONDS, concurrency: CONCURRENCY, headers })], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const text = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`load generator exited with ${child.exitCode}`);
  const result = JSON.parse(text) as LoadResult;
  return { ...result, latencies: result.latencies.sort((a, b) => a - b) };
}

/** The real auth composition on in-memory PGlite, and a wallet that owns 20 seeded agents. */
async function signedInUser(ledger: EmbeddedLedger, index: ReturnType<typeof createAgentIndex>) {
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
