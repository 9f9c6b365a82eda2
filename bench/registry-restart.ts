/**
 * The registry index kept in the store: how long a restart takes to serve, against a first start.
 *
 *   BENCH_AGENTS=100000 bun bench/registry-restart.ts                       PostgreSQL (scratch database, dropped)
 *   BENCH_AGENTS=100000 BENCH_STORE=pglite bun bench/registry-restart.ts    PGlite on disk (temporary DATA_DIR)
 *   BENCH_AGENTS=1000000 bun bench/registry-restart.ts                      1,000,000 (seeding takes minutes)
 *   BENCH_FEEDBACK=100000 BENCH_SERVICES=50000 bun bench/registry-restart.ts also seeds feedback entries and
 *     services (spread over the agents; default none) and reports each kind's restart from the store
 *   BENCH_DATABASE=reg1m BENCH_AGENTS=1000000 bun bench/registry-restart.ts  keeps that database: the first
 *     run seeds and stores it, later runs find its snapshot and measure the restart alone (no ledger seeded,
 *     so RSS is the index's own; the catch-up step is skipped). Drop it with `dropdb reg1m` when done.
 *
 * Seeds the embedded ledger in this process, then: a first index with the store (one full read per
 * kind, everything saved); a second index (a restart) over a ledger that holds every full read, as
 * a slow or down node does: it serves from the store alone; then the held reads are let through and
 * the restarted index catches up. Timings are wall time on the event loop's clock; the longest slice
 * is the index's own (its store pages and decoding). The first start writes a snapshot of the built
 * index (agent-snapshot.ts) as well as the accounts; the restart serves from the snapshot when there
 * is one. Also: this process's CPU time to serving, its RSS, a list / detail / owner / `q` query at
 * serving time, and how long until `q` is answered from its lists (a `q` scans the catalog until
 * they are built after serving).
 */
import type { Address } from "@solana/kit";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { systemClock } from "../src/application/ports/clock.ts";
import type { Ledger } from "../src/application/ports/ledger.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createLocalProgramFeed } from "../src/infrastructure/ledger/local-program-feed.ts";
import { createAgentIndex, type RefreshReport } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { openStore, type OpenedStore } from "../src/infrastructure/store/index.ts";
import { createSqlRegistryAccountStore } from "../src/infrastructure/store/sql-registry-account-store.ts";
import { encodeAgentService, SERVICE_TYPES } from "../src/domain/registry/agent-service.ts";
import { encodeFeedbackEntry } from "../src/domain/registry/feedback-entry.ts";
import type { LocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { address, programId, writeAgent } from "./registry-agents.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);
const FEEDBACK = Number(process.env.BENCH_FEEDBACK ?? 0);
const SERVICES = Number(process.env.BENCH_SERVICES ?? 0);
const STORE = process.env.BENCH_STORE === "pglite" ? "pglite" : "postgres";
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const KEPT_DATABASE = process.env.BENCH_DATABASE ?? null;

async function openBenchStore(): Promise<{ store: OpenedStore; cleanUp(): Promise<void>; reused: boolean }> {
  if (STORE === "pglite") {
    const dataDir = mkdtempSync(join(tmpdir(), "bench-restart-"));
    return { store: await openStore({ dataDir }), cleanUp: async () => rmSync(dataDir, { recursive: true, force: true }), reused: false };
  }
  const database = KEPT_DATABASE ?? `registry_restart_${process.pid}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error("BENCH_DATABASE: lower-case letters, digits and _ only");
  const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  const existing = await admin`select 1 from pg_database where datname = ${database}`;
  if (existing.length === 0) await admin.unsafe(`create database ${database}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const store = await openStore({ databaseUrl: url.href, maxConnections: 4 });
  // Reused only when an earlier run of the same size completed (its snapshot is in).
  const reused = existing.length > 0 && (await store.executor.query(`select 1 from registry_snapshots where kind = 'agents'`)).length > 0;
  if (KEPT_DATABASE) return { store, reused, cleanUp: async () => void (await admin.end({ timeout: 1 })) };
  return {
    store,
    reused,
    cleanUp: async () => {
      await admin.unsafe(`drop database if exists ${database} with (force)`);
      await admin.end({ timeout: 1 });
    },
  };
}

/** Anchor's padding after the fields, as on the ledger. */
function put(ledger: LocalLedger, at: Address, fields: Uint8Array, space: number): void {
  const data = new Uint8Array(Math.max(space, fields.length));
  data.set(fields);
  ledger.setAccount(at, { lamports: 2_000_000n, owner: programId, data });
}

function writeFeedback(ledger: LocalLedger, n: number): void {
  const paid = n % 2 === 0;
  put(ledger, address(10, n), encodeFeedbackEntry({ nftMint: address(1, n % AGENTS), reviewer: address(4, n % 5_000), score: (n * 17) % 101, tag1: new Uint8Array(32).fill(1), tag2: new Uint8Array(32), authVerified: paid, hasPaymentProof: paid, paymentAmount: paid ? 1_000_000n : 0n, paymentToken: paid ? address(5, 1) : address(5, 0), revoked: false, createdAt: 1_700_100_000n + BigInt(n), bump: 254 }), 256);
}

function writeService(ledger: LocalLedger, n: number): void {
  const serviceType = SERVICE_TYPES[n % SERVICE_TYPES.length] as (typeof SERVICE_TYPES)[number];
  put(ledger, address(11, n), encodeAgentService({ nftMint: address(1, n % AGENTS), serviceType, endpoint: `https://svc.example/${n}/${serviceType}`, version: "1.0.0", active: true, createdAt: 1_700_200_000n, updatedAt: 1_700_200_000n, bump: 253 }), 400);
}

const loadAtStart = loadavg().map((l) => l.toFixed(2)).join(" ");
const { store, cleanUp, reused } = await openBenchStore();
const ledger = createLocalLedger();
if (!reused) {
  for (let n = 0; n < AGENTS; n++) writeAgent(ledger, n);
  for (let n = 0; n < FEEDBACK; n++) writeFeedback(ledger, n);
  for (let n = 0; n < SERVICES; n++) writeService(ledger, n);
}
const pglite = store.kind === "pglite";
const accounts = createSqlRegistryAccountStore(store.executor, programId, { pageRows: pglite ? 150 : 2_000, snapshotChunksPerStatement: pglite ? 1 : 8 });
const rows: Record<string, string>[] = [];
try {
  let started = performance.now();
  if (!reused) {
    const first = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts, storeBatchSize: pglite ? 100 : 500 });
    await first.ready();
    rows.push({ step: "first start: serving (3 full reads, decoded, catalog built)", value: s(performance.now() - started) });
    started = performance.now();
    await first.close();
    rows.push({ step: `first start: every account saved (${pglite ? 100 : 500} a statement) and the snapshot written`, value: s(performance.now() - started) });
  } else rows.push({ step: "first start", value: `skipped: database ${KEPT_DATABASE} reused (no ledger seeded)` });

  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const slow: Ledger = { ...ledger, getProgramAccounts: async (program, filters) => (await held, ledger.getProgramAccounts(program, filters)) };
  const reports: RefreshReport[] = [];
  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = cpuMs();
  started = performance.now();
  const restarted = createAgentIndex({ ledger: slow, clock: systemClock, programId, ttlMs: 30_000, logger: silentLogger, feed: createLocalProgramFeed(ledger), store: accounts, onRefresh: (r) => reports.push(r) });
  await restarted.ready();
  const servingMs = performance.now() - started;
  const servingCpuMs = cpuMs() - cpuBefore;
  const rssServing = process.memoryUsage().rss;
  const timed = async (query: () => Promise<unknown>) => {
    const at = performance.now();
    await query();
    return performance.now() - at;
  };
  const queries = {
    list: await timed(() => restarted.listAgents({ limit: 20 })),
    detail: await timed(() => restarted.getAgent(address(1, 7))),
    owner: await timed(() => restarted.agentsOwnedBy(address(2, 7))),
    q: await timed(() => restarted.listAgents({ limit: 20, q: "/77777/agent" })),
  };
  // `q` from its lists: an answer in under 2 ms, or a tenth of the scan at serving (a scan takes
  // tens of ms at 100,000 and over 100 ms at 1,000,000, where the lists' answer takes a few ms).
  let qListedMs = Number.NaN;
  for (let i = 0; i < 1200; i++) {
    if ((await timed(() => restarted.listAgents({ limit: 20, q: "/77777/agent" }))) < Math.max(2, queries.q / 10)) {
      qListedMs = performance.now() - started;
      break;
    }
    await Bun.sleep(50);
  }
  const agents = (await restarted.listAgents({ limit: 1 })).items.length > 0 && (await restarted.getAgent(address(1, 1)))?.identity.nftMint === address(1, 1);
  const fromStore = reports.filter((r) => r.source === "store");
  rows.push({ step: "restart: serving from the store (the node holds every read)", value: `${s(servingMs)}${agents ? "" : " (agent missing!)"}` });
  rows.push({ step: "restart: CPU of this process to serving (all threads)", value: s(servingCpuMs) });
  rows.push({ step: "restart: at serving, list / detail / owner / q (scan until its lists are in)", value: `${queries.list.toFixed(1)} / ${queries.detail.toFixed(1)} / ${queries.owner.toFixed(1)} / ${queries.q.toFixed(1)} ms` });
  rows.push({ step: "restart: q answered from its lists (every query kind fully served) after", value: s(qListedMs) });
  for (const r of fromStore) rows.push({ step: `restart: ${r.kind} from the store: wall / index work / longest slice (${r.accounts} accounts)`, value: `${s(r.wallMs)} / ${s(r.busyMs)} / ${r.longestSliceMs.toFixed(1)} ms` });
  rows.push({ step: "restart: index work / longest slice", value: `${s(fromStore.reduce((t, r) => t + r.busyMs, 0))} / ${fromStore.reduce((m, r) => Math.max(m, r.longestSliceMs), 0).toFixed(1)} ms` });
  started = performance.now();
  if (!reused) {
    release();
    await restarted.refresh();
    rows.push({ step: "restart: catching up once the node answers (3 full reads, nothing changed)", value: s(performance.now() - started) });
  }
  rows.push({ step: "RSS before the restart (first index closed, ledger seeded) / at serving / after catch-up", value: `${mb(rssBefore)} / ${mb(rssServing)} / ${mb(process.memoryUsage().rss)}` });
  await restarted.close();
} finally {
  await store.close();
  await cleanUp();
}
console.log(`\nregistry restart bench: ${AGENTS} agents, ${FEEDBACK} feedback, ${SERVICES} services, store ${STORE}, load average at start ${loadAtStart}, at end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (Bun ${Bun.version})`);
console.table(rows);
