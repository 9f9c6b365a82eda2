/**
 * Benchmark of the registry read API over the embedded ledger.
 *
 *   npm run bench:registry                                   10,000 agents, TTL 30 s
 *   BENCH_AGENTS=100000 BENCH_TTL_SECONDS=3 BENCH_CHURN=200 npm run bench:registry
 *                                                            100,000 agents, a refresh every ~2 s
 *                                                            with 200 agents changed per second
 *   BENCH_LEDGER=rpc BENCH_AGENTS=100000 npm run bench:registry
 *                                                            the ledger in its own process, read over
 *                                                            JSON-RPC (the production shape)
 *   (BENCH_SECONDS=4 BENCH_CONCURRENCY=64 BENCH_RECONCILE_SECONDS=10 to tune)
 *
 * Seeds AgentIdentity accounts (real byte layout, Anchor padding) into the embedded litesvm
 * ledger: by default in this process (its copies of the accounts then count in the RSS reported),
 * with BENCH_LEDGER=rpc in a child process (registry-ledger-process.ts) that serves JSON-RPC and its
 * WebSocket pubsub and rewrites accounts on command, while this process reads it the way the
 * service does with an external SOLANA_RPC_URL (the JSON-RPC ledger, the Worker reader for full
 * reads, programSubscribe over the WebSocket for pushed writes). In process, the index follows the
 * ledger's own programSubscribe, as `npm start` does.
 *
 * First the index in isolation: the cold load (three full reads, catalog built), full reads with
 * nothing changed, and 1% and 20% of the agents rewritten, once applied from pushed writes and once
 * found by a full read (the feed paused, as after a reconnect). Each row gives the wall time, the
 * event-loop time of the index's own sliced work, its longest slice, the longest event-loop stall
 * any timer saw meanwhile (GC and everything else included), the ledger read and the process CPU.
 *
 * Then it serves the registry routes with Bun.serve on a random port and loads them with a
 * closed-loop generator in a separate process (so RSS and the event loop are the server's only),
 * for a bounded time per scenario. With BENCH_CHURN, agents are rewritten with a new updated_at
 * during the load, so pushed-write batches and full reads (every BENCH_RECONCILE_SECONDS) run
 * meanwhile. Then the time from a ledger write to the change in a response, and last GET /users/me
 * with a bearer token for a wallet owning 20 of the agents (JWT check, PGlite user read, the index's
 * owner list).
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import { Elysia } from "elysia";
import type { Address } from "@solana/kit";
import type { Ledger } from "../src/application/ports/ledger.ts";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../src/domain/registry/agent-identity.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { APP_CONFIG } from "../src/http/app-config.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { registryRoutes } from "../src/http/registry/registry-routes.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../src/infrastructure/ledger/rpc-ledger.ts";
import { createAgentIndex, type LiveAgentIndex, type RefreshReport } from "../src/infrastructure/registry/ledger-agent-index.ts";
import type { ProgramAccountFeed } from "../src/application/ports/program-account-feed.ts";
import { createLocalProgramFeed } from "../src/infrastructure/ledger/local-program-feed.ts";
import { createRpcProgramFeed } from "../src/infrastructure/ledger/rpc-program-feed.ts";
import { createRpcProgramAccountReader, type ProgramAccountReader } from "../src/infrastructure/registry/rpc-program-account-reader.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPairSigner, getBase58Decoder, signBytes } from "@solana/kit";
import { createAuth } from "../src/composition/auth-composition.ts";
import { authRoutes } from "../src/http/registry/auth-routes.ts";
import { usersRoutes } from "../src/http/registry/users-routes.ts";
import { parseAppConfig } from "../src/infrastructure/config/app-config.ts";
import { openStore } from "../src/infrastructure/store/index.ts";
import { createSqlWindowCounters } from "../src/infrastructure/store/sql-window-counters.ts";
import { address, agent, programId, registryScenarios, rewriteShare, writeAgent, writeOwnedAgents } from "./registry-agents.ts";
import { threadCpuMs } from "./thread-cpu.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const TTL_SECONDS = Number(process.env.BENCH_TTL_SECONDS ?? 30);
const CHURN = Number(process.env.BENCH_CHURN ?? 0);
const RECONCILE_SECONDS = Number(process.env.BENCH_RECONCILE_SECONDS ?? 10);
const LEDGER_MODE = process.env.BENCH_LEDGER === "rpc" ? "rpc" : "in-process";

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0);
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

/** The seeded ledger as the bench drives it, in this process or in a child serving JSON-RPC. */
type BenchLedger = Readonly<{
  /** What the index reads through (and `/users/me`'s owner-filtered read). */
  ledger: Ledger;
  readProgramAccounts?: ProgramAccountReader;
  /** programSubscribe: the ledger's own in process, over its WebSocket for the child. */
  feed: ProgramAccountFeed;
  seedMs: number;
  rewrite(share: number, version: number): Promise<void>;
  /** Rewrites `count` agents from the `from`-th churn step on; not awaited by the churn timer. */
  churn(from: number, count: number, version: number): Promise<void>;
  /** Rewrites agent `n` at `version`. */
  write(n: number, version: number): Promise<void>;
  addOwned(owner: Address): Promise<void>;
  /** The ledger process's RSS when it is not this one. */
  ledgerRss(): Promise<number | undefined>;
  close(): void;
}>;

function inProcessLedger(): BenchLedger {
  const ledger = createLocalLedger();
  const seedStart = performance.now();
  for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
  return {
    ledger,
    feed: createLocalProgramFeed(ledger),
    seedMs: performance.now() - seedStart,
    rewrite: async (share, version) => rewriteShare(ledger, AGENTS, share, version),
    churn: async (from, count, version) => {
      for (let i = 0; i < count; i++) writeAgent(ledger, ((from + i) * 7919) % AGENTS, version + from + i + 1);
    },
    write: async (n, version) => writeAgent(ledger, n, version),
    addOwned: async (owner) => writeOwnedAgents(ledger, 20, owner, AGENTS),
    ledgerRss: async () => undefined,
    close: () => {},
  };
}

/** The ledger in registry-ledger-process.ts; commands go one a line on its stdin, answered in order. */
async function childProcessLedger(): Promise<BenchLedger> {
  const child = Bun.spawn([process.execPath, new URL("./registry-ledger-process.ts", import.meta.url).pathname], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, BENCH_AGENTS: String(AGENTS) },
  });
  const waiting: ((line: string) => void)[] = [];
  const lines = (async function* () {
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = child.stdout.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffered += decoder.decode(read.value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        yield buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
      }
    }
  })();
  const first = await lines.next();
  if (first.done) throw new Error(`ledger process exited with ${await child.exited}`);
  const { url, seedMs } = JSON.parse(first.value) as { url: string; seedMs: number };
  void (async () => {
    for await (const line of lines) waiting.shift()?.(line);
  })();
  const send = (command: Record<string, unknown>) =>
    new Promise<{ rss: number }>((resolve) => {
      waiting.push((line) => resolve(JSON.parse(line) as { rss: number }));
      child.stdin.write(`${JSON.stringify(command)}\n`);
      child.stdin.flush();
    });
  return {
    // As src/service.ts wires an external SOLANA_RPC_URL (a 120 s budget for the full reads, which
    // the embedded ledger's own JSON-RPC server answers in seconds at 100,000).
    ledger: createRpcLedger({ url, logger: silentLogger }),
    // The first byte of a 100,000-account answer can take longer than the 3 s default on a loaded
    // machine (the child serialises it on the same two cores).
    readProgramAccounts: createRpcProgramAccountReader({ url, timeoutMs: 120_000, answerTimeoutMs: 60_000 }),
    feed: createRpcProgramFeed({ url: url.replace(/^http/, "ws"), logger: silentLogger }),
    seedMs,
    rewrite: async (share, version) => void (await send({ op: "rewrite", share, version })),
    churn: async (from, count, version) => void (await send({ op: "churn", from, count, version })),
    write: async (n, version) => void (await send({ op: "write", n, version })),
    addOwned: async (owner) => void (await send({ op: "owned", owner })),
    ledgerRss: async () => (await send({ op: "rss" })).rss,
    close: () => child.kill(),
  };
}

/**
 * This thread's time on a CPU and waiting for one, from /proc/thread-self/schedstat (Linux), in ms:
 * on a shared 2-core machine a thread often waits for a CPU longer than it runs, and that wait is
 * the machine's doing, not ours.
 */
function threadTimes(): { cpu: number; wait: number } {
  try {
    const [cpu = "0", wait = "0"] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ");
    return { cpu: Number(cpu) / 1e6, wait: Number(wait) / 1e6 };
  } catch {
    return { cpu: Number.NaN, wait: 0 };
  }
}

/**
 * An event-loop delay probe: a 5 ms timer and how late each firing is (timer drift), over whatever
 * ran meanwhile; `own` leaves out the time this thread waited for a CPU (other processes on the
 * machine). Not perf_hooks' monitorEventLoopDelay: in Bun 1.4.5 it reports ~58 ms on an idle loop.
 */
function stallMeter() {
  let last = performance.now();
  let lastWait = threadTimes().wait;
  let samples: number[] = [];
  let longest = 0;
  let own = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const { wait } = threadTimes();
    const late = Math.max(0, now - last - 5);
    const ownLate = Math.max(0, late - (wait - lastWait));
    longest = Math.max(longest, late);
    own = Math.max(own, ownLate);
    samples.push(ownLate);
    last = now;
    lastWait = wait;
  }, 5);
  return {
    /**
     * Since the last take: the longest stall (all, and this thread's own), the 99th percentile of
     * this thread's own delays and how many of them passed 10 ms; then starts over.
     */
    take(): { all: number; own: number; p99: number; over10: number } {
      samples.sort((a, b) => a - b);
      const value = { all: longest, own, p99: percentile(samples, 99) || 0, over10: samples.filter((d) => d > 10).length };
      samples = [];
      longest = 0;
      own = 0;
      last = performance.now();
      lastWait = threadTimes().wait;
      return value;
    },
    stop: () => clearInterval(timer),
  };
}

/** A feed the bench can pause, to make a full read find what it missed (as after a reconnect). */
function pausable(feed: ProgramAccountFeed) {
  let paused = false;
  const wrapped: ProgramAccountFeed = {
    subscribe: (program, filters, handlers) => feed.subscribe(program, filters, { change: (c) => (paused ? undefined : handlers.change(c)), status: handlers.status }),
  };
  return { feed: wrapped, pause: (on: boolean) => void (paused = on) };
}

async function main(): Promise<void> {
  const loadAtStart = load();
  const bench = LEDGER_MODE === "rpc" ? await childProcessLedger() : inProcessLedger();
  const { ledger, seedMs } = bench;
  const rssSeeded = process.memoryUsage().rss;
  const stalls = stallMeter();

  const reports: (RefreshReport & { at: number })[] = [];
  const feed = pausable(bench.feed);
  const cpuCold = process.cpuUsage();
  const coldStart = performance.now();
  const index = createAgentIndex({
    ledger,
    clock: systemClock,
    programId,
    ttlMs: TTL_SECONDS * 1000,
    reconcileMs: RECONCILE_SECONDS * 1000,
    feed: feed.feed,
    // To the microsecond: schedstat's CPU time moves in scheduler ticks (4 ms here).
    cpuNow: threadCpuMs,
    logger: silentLogger,
    ...(bench.readProgramAccounts ? { readProgramAccounts: bench.readProgramAccounts } : {}),
    onRefresh: (report) => reports.push({ ...report, at: performance.now() }),
  });
  await index.ready();

  // The index in isolation (no load): what each step costs and how long it holds the event loop.
  let version = 1;
  const refreshRows: Record<string, string | number>[] = [];
  function row(name: string, wallMs: number, cpu: NodeJS.CpuUsage, steps: readonly RefreshReport[]): void {
    const used = process.cpuUsage(cpu);
    const stall = stalls.take();
    refreshRows.push({
      step: name,
      "wall ms": ms(wallMs),
      "index busy ms": ms(steps.reduce((sum, r) => sum + r.busyMs, 0)),
      "longest slice ms (wall / CPU)": `${ms(Math.max(0, ...steps.map((r) => r.longestSliceMs)))} / ${ms(Math.max(0, ...steps.map((r) => r.longestSliceCpuMs)))}`,
      "longest stall ms (all / own)": `${ms(stall.all)} / ${ms(stall.own)}`,
      "own loop delay p99 ms, > 10 ms": `${ms(stall.p99)}, ${stall.over10}`,
      "ledger read ms": ms(Math.max(0, ...steps.map((r) => r.readMs))),
      "process CPU ms": ms((used.user + used.system) / 1000),
      changed: steps.reduce((sum, r) => sum + r.changed, 0),
    });
  }
  row(`cold: 3 full reads, catalog built`, performance.now() - coldStart, cpuCold, reports);
  async function fullRead(name: string, change: () => Promise<void>): Promise<void> {
    feed.pause(true);
    await change();
    feed.pause(false);
    const before = reports.length;
    const cpu = process.cpuUsage();
    stalls.take();
    const wall = performance.now();
    await index.refresh();
    row(name, performance.now() - wall, cpu, reports.slice(before));
  }
  /** Rewrites, then waits until the index shows the last rewritten agent's new version. */
  async function pushed(name: string, share: number): Promise<void> {
    const before = reports.length;
    const cpu = process.cpuUsage();
    stalls.take();
    const wall = performance.now();
    const v = version++;
    await bench.rewrite(share, v);
    // In process the rewrite itself (the bench encoding 20,000 agents) holds the loop: not the index's
    // doing. Over JSON-RPC the child rewrites, and the feed may apply writes before it answers.
    if (LEDGER_MODE !== "rpc") {
      stalls.take();
      }
    const step = Math.max(1, Math.round(1 / share));
    const last = Math.floor((AGENTS - 1) / step) * step;
    const expected = agent(last, v).updatedAt;
    while ((await index.getAgent(address(1, last)))?.identity.updatedAt !== expected) await Bun.sleep(1);
    row(name, performance.now() - wall, cpu, reports.slice(before));
  }
  const rewrite = (share: number) => () => bench.rewrite(share, version++);
  const nothing = async () => {};
  for (let i = 0; i < 2; i++) await fullRead("full read, nothing changed", nothing);
  for (let i = 0; i < 2; i++) await pushed("pushed writes, 1% rewritten", 0.01);
  for (let i = 0; i < 2; i++) await pushed("pushed writes, 20% rewritten", 0.2);
  for (let i = 0; i < 2; i++) await fullRead("full read finds 1% changed (feed paused)", rewrite(0.01));
  for (let i = 0; i < 2; i++) await fullRead("full read finds 20% changed (feed paused)", rewrite(0.2));
  const gpaStart = performance.now();
  const agentFilters = [{ memcmp: { offset: 0, bytes: new Uint8Array(AGENT_IDENTITY_DISCRIMINATOR) } }];
  await (bench.readProgramAccounts ?? ((program, filters) => ledger.getProgramAccounts(program, filters)))(programId, agentFilters);
  const gpaMs = performance.now() - gpaStart;
  Bun.gc(true);
  // A full collection with nothing else running: roughly the pause one costs a request meanwhile.
  const gcStart = performance.now();
  Bun.gc(true);
  const fullGcMs = performance.now() - gcStart;
  const rssIndexed = process.memoryUsage().rss;
  const { heapSize: heapIndexed, objectCount: objectsIndexed } = heapStats();

  const app = new Elysia(APP_CONFIG).use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.handle(request) });
  const base = `http://127.0.0.1:${server.port}`;

  const page2 = (await (await fetch(`${base}/agents?limit=20`)).json()) as { cursor: { next: string } };
  const scenarios = registryScenarios(page2.cursor.next);

  // Churn: agents rewritten with a newer updated_at, a few every 10 ms, during the load (in
  // process each litesvm write holds this loop ~0.5 ms, so they are spread out as real traffic is).
  let churned = 0;
  let owed = 0;
  const churn = CHURN > 0
    ? setInterval(() => {
        owed += CHURN / 100;
        const count = Math.floor(owed);
        if (count === 0) return;
        owed -= count;
        void bench.churn(churned, count, version);
        churned += count;
      }, 10)
    : null;
  let rssPeak = 0;
  const rssSampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);

  const rows: Record<string, string | number>[] = [];
  async function run(name: string, url: string, headers?: Record<string, string>): Promise<void> {
    const started = performance.now();
    stalls.take();
    const result = await loadInProcess(url, headers);
    const during = reports.filter((r) => r.at >= started);
    const stall = stalls.take();
    rows.push({
      scenario: name,
      "req/s": Math.round(result.count / SECONDS),
      "p50 ms": percentile(result.latencies, 50).toFixed(2),
      "p99 ms": percentile(result.latencies, 99).toFixed(2),
      "max ms": percentile(result.latencies, 100).toFixed(1),
      errors: result.errors,
      "full reads": during.filter((r) => r.source === "read").length,
      "feed batches": during.filter((r) => r.source === "feed").length,
      "longest slice ms (wall / CPU)": during.length ? `${ms(Math.max(...during.map((r) => r.longestSliceMs)))} / ${ms(Math.max(...during.map((r) => r.longestSliceCpuMs)))}` : "-",
      "longest stall ms (all / own)": `${ms(stall.all)} / ${ms(stall.own)}`,
      "own loop delay p99 ms, > 10 ms": `${ms(stall.p99)}, ${stall.over10}`,
    });
  }
  // Markers in stderr, so that a collector log (BUN_JSC_logGC=1) can be cut to the scenarios.
  console.error("[bench] scenarios start");
  for (const [name, path] of scenarios) await run(name, `${base}${path}`);
  console.error("[bench] scenarios end");
  const rssPeakRegistry = rssPeak;
  const rssAfterRegistry = process.memoryUsage().rss;
  // Printed now as well, so that a later step failing under load does not lose them.
  console.log(`scenarios: RSS peak ${mb(rssPeakRegistry)}, after ${mb(rssAfterRegistry)}`);
  console.table(rows);

  // From a ledger write to the change in a detail response (through the server), 20 times.
  const visible: number[] = [];
  for (let i = 0; i < 20; i++) {
    const n = (i * 4099 + 17) % AGENTS;
    const v = version + 1_000 + i;
    const expected = new Date(Number(agent(n, v).updatedAt) * 1000).toISOString();
    const started = performance.now();
    await bench.churn(0, 0, 0); // a round trip first: the write below is the only one measured
    const writeAt = performance.now();
    await bench.write(n, v);
    for (;;) {
      const body = (await (await fetch(`${base}/agents/${address(1, n)}`)).json()) as { updatedAt?: string };
      if (body.updatedAt === expected) break;
      if (performance.now() - started > 10_000) throw new Error("a write did not show within 10 s");
      await Bun.sleep(2);
    }
    visible.push(performance.now() - writeAt);
  }
  visible.sort((a, b) => a - b);

  // /users/me needs the auth composition, whose in-memory PGlite alone takes a few hundred MB of
  // RSS: it starts only now, so the figures above are the registry's.
  const signedIn = await signedInUser(bench, index);
  const usersApp = new Elysia(APP_CONFIG).use(errorLayer(silentLogger)).use(authRoutes(signedIn.auth)).use(usersRoutes(signedIn.auth));
  const usersServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => usersApp.handle(request) });
  const usersBase = `http://127.0.0.1:${usersServer.port}`;
  await run("/users/me (20 agents)", `${usersBase}/users/me`, { authorization: `Bearer ${await signedIn.token(usersBase)}` });
  await usersServer.stop(true);
  if (churn) clearInterval(churn);
  clearInterval(rssSampler);
  stalls.stop();
  await server.stop(true);
  await signedIn.close();
  await index.close();
  const ledgerRss = await bench.ledgerRss();
  bench.close();

  console.log(`\nregistry bench: ${AGENTS} agents, ledger ${LEDGER_MODE === "rpc" ? "in a child process over JSON-RPC and its WebSocket" : "in process (its own programSubscribe)"}, ${CONCURRENCY} concurrent fetches from another process, ${SECONDS}s per scenario, TTL ${TTL_SECONDS}s, full read every ${RECONCILE_SECONDS}s, churn ${CHURN} agents/s (Bun ${Bun.version})`);
  console.log(`load average at start ${loadAtStart}, at end ${load()} (2 cores)\n`);
  console.table(refreshRows);
  console.table(rows);
  console.table([
    { metric: "seed via setAccount", value: `${seedMs.toFixed(0)} ms` },
    { metric: `${LEDGER_MODE === "rpc" ? "JSON-RPC (Worker reader)" : "embedded"} getProgramAccounts (agents, warm)`, value: `${gpaMs.toFixed(0)} ms` },
    { metric: "ledger write to response (20 writes)", value: `median ${ms(percentile(visible, 50))} ms, max ${ms(visible.at(-1) ?? 0)} ms` },
    { metric: "agents rewritten during the load", value: `${churned}` },
    { metric: "JS heap with index built", value: `${mb(heapIndexed)}, ${(objectsIndexed / 1e6).toFixed(2)} M objects` },
    { metric: "a full collection then (Bun.gc(true))", value: `${ms(fullGcMs)} ms` },
    { metric: "RSS after seeding", value: mb(rssSeeded) },
    { metric: "RSS with index built", value: mb(rssIndexed) },
    { metric: "RSS peak during the registry scenarios", value: mb(rssPeakRegistry) },
    { metric: "RSS after the registry scenarios", value: mb(rssAfterRegistry) },
    { metric: "RSS peak with /users/me (adds PGlite)", value: mb(rssPeak) },
    ...(ledgerRss === undefined ? [] : [{ metric: "ledger process RSS at the end (not counted above)", value: mb(ledgerRss) }]),
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
async function signedInUser(bench: BenchLedger, index: LiveAgentIndex) {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-auth-"));
  const parsed = parseAppConfig({ DATA_DIR: dataDir, AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000" });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const store = await openStore({ inMemory: true });
  const auth = await createAuth(parsed.config, { executor: store.executor, index, counters: createSqlWindowCounters(store.executor, "bench"), clock: systemClock, logger: silentLogger });
  const wallet = await generateKeyPairSigner();
  await bench.addOwned(wallet.address);
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
