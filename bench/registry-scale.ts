/**
 * Simulation behind docs/scaling.md: the registry at 1,000,000 agents, two ways.
 *
 *   bun bench/registry-scale.ts                               both parts, 1,000,000 agents
 *   BENCH_SCALE_AGENTS=200000 BENCH_SCALE_PARTS=memory bun bench/registry-scale.ts
 *
 * memory: what each replica pays with today's design (every replica reads every account and
 * keeps the whole index): decoding and building the catalog from scratch, its heap, a refresh that
 * finds 0.1% of the accounts changed (byte comparison of all, decode and overlay of the changed),
 * the JSON a full getProgramAccounts answer weighs, and page latencies in-process.
 *
 * postgres: the shared index the paper proposes, on the local PostgreSQL (BENCH_POSTGRES_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres) in a scratch database that is dropped at
 * the end: load, index build times and sizes (pg_trgm GIN for q), the same page queries, and
 * how fast a single refresher applies a feed of changed agents (batched upserts).
 *
 * Bounded: about 3-5 minutes and ~4 GB of RSS at 1,000,000 agents on 2 cores.
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import postgres from "postgres";
import { getAddressDecoder, type Address } from "@solana/kit";
import { agentCatalogWork, type AgentCatalog, type AgentPageRequest } from "../src/domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../src/domain/registry/agent-record.ts";
import { decodeAgentIdentity, encodeAgentIdentity, type AgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { toHex } from "../src/domain/registry/borsh-codecs.ts";
import { categoryHash, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../src/domain/registry/pdas.ts";
import { finishNow } from "../src/domain/registry/sliced-work.ts";
import { createAccountBaseline } from "../src/infrastructure/registry/account-baseline.ts";

const AGENTS = Number(process.env.BENCH_SCALE_AGENTS ?? 1_000_000);
const PARTS = new Set((process.env.BENCH_SCALE_PARTS ?? "memory,postgres").split(","));
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const AGENT_SPACE = 578;
const CHANGED_SHARE = 0.001;
const QUERY_RUNS = 400;

const WORDS = ["weather", "oracle", "tutor", "helpdesk", "trade", "swap", "index", "scout", "audit", "guard", "relay", "ledger", "vision", "voice", "quant", "atlas", "nova", "pixel", "forge", "pulse"];
const TAGS = DEFAULT_CATEGORY_NAMES.map((name) => Uint8Array.from(categoryHash(name).match(/../g) ?? [], (h) => parseInt(h, 16)));

function address(label: number, n: number): Address {
  const bytes = new Uint8Array(32);
  bytes[0] = label;
  new DataView(bytes.buffer).setUint32(1, n, true);
  return getAddressDecoder().decode(bytes);
}

/** About 8,000 hosts of two words and a number, so a host is a rare term and a word a common one. */
function agent(n: number, version = 0): AgentIdentity {
  const host = `${WORDS[n % 20]}-${WORDS[Math.floor(n / 20) % 20]}${Math.floor(n / 400) % 20}.example.com`;
  return {
    nftMint: address(1, n),
    owner: address(2, n % 50_000),
    ownerVersion: 1n,
    feedbackAuthority: address(3, n),
    metadataUri: `https://${host}/agents/${n}/card.json`,
    metadataHash: new Uint8Array(32),
    tags: [TAGS[n % 16] as Uint8Array, TAGS[(n * 7) % 16] as Uint8Array],
    active: n % 10 !== 0,
    createdAt: 1_700_000_000n + BigInt(n),
    updatedAt: 1_700_000_000n + BigInt((n * 7919) % 5_000_000) + BigInt(version) * 10_000_000n,
    verifiedFeedbackCount: BigInt(n % 7),
    verifiedScoreSum: BigInt((n % 7) * 80),
    unverifiedFeedbackCount: 0n,
    unverifiedScoreSum: 0n,
    validationCount: 0n,
    delegationCount: 0n,
    bump: 255,
  };
}

function accountBytes(identity: AgentIdentity): Uint8Array {
  const data = new Uint8Array(AGENT_SPACE);
  data.set(encodeAgentIdentity(identity));
  return data;
}

const QUERIES: [string, AgentPageRequest][] = [
  ["first page", { limit: 20 }],
  ["limit=100", { limit: 100 }],
  ["active=true", { limit: 20, active: true }],
  ["category", { limit: 20, categoryHash: toHex(TAGS[3] as Uint8Array) }],
  ["owner", { limit: 20, owner: address(2, 4242) }],
  ["q rare (a host)", { limit: 20, q: "audit-nova7.example" }],
  ["q common (a word)", { limit: 20, q: "oracle" }],
  ["q absent", { limit: 20, q: "zz-nothing" }],
  ["combined", { limit: 20, active: true, categoryHash: toHex(TAGS[5] as Uint8Array), q: "relay" }],
];

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 0);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function memoryPart(): Promise<void> {
  const rows: Record<string, string>[] = [];
  const note = (metric: string, value: string) => rows.push({ metric, value });
  let start = performance.now();
  const accounts = Array.from({ length: AGENTS }, (_, n) => ({ address: address(9, n), owner: DEFAULT_REGISTRY_PROGRAM_ID, data: accountBytes(agent(n)) }));
  note("synthetic accounts encoded", `${((performance.now() - start) / 1000).toFixed(1)} s`);
  // A getProgramAccounts answer: per account ~ base64 of the data plus pubkey, owner and fields.
  const jsonBytes = AGENTS * (Math.ceil(AGENT_SPACE / 3) * 4 + 200);
  note("one full getProgramAccounts answer (JSON, estimated)", mb(jsonBytes));

  const cache = createAccountBaseline(DEFAULT_REGISTRY_PROGRAM_ID, decodeAgentIdentity, (address, identity): AgentRecord => ({ address, identity }));
  start = performance.now();
  finishNow(cache.reconcile(accounts, 0n, cache.mark()));
  const decodeMs = performance.now() - start;
  start = performance.now();
  let catalog: AgentCatalog = finishNow(agentCatalogWork(finishNow(cache.records())));
  const buildMs = performance.now() - start;
  note("cold: decode every account", `${(decodeMs / 1000).toFixed(1)} s of CPU`);
  note("cold: build the catalog (sort, lists, n-grams)", `${(buildMs / 1000).toFixed(1)} s of CPU`);
  Bun.gc(true);
  note("JS heap with the index (records, catalog, byte baseline)", mb(heapStats().heapSize));
  note("RSS", mb(process.memoryUsage().rss));

  for (let round = 1; round <= 2; round++) {
    const step = Math.round(1 / CHANGED_SHARE);
    for (let n = round; n < AGENTS; n += step) accounts[n] = { ...(accounts[n] as (typeof accounts)[number]), data: accountBytes(agent(n, round)) };
    start = performance.now();
    const next = finishNow(cache.reconcile(accounts, 0n, cache.mark()));
    const compareMs = performance.now() - start;
    start = performance.now();
    catalog = finishNow(agentCatalogWork(finishNow(cache.records()), catalog));
    note(`refresh with ${next.added.length} changed (${CHANGED_SHARE * 100}%): compare all + decode changed`, `${ms(compareMs)} ms of CPU`);
    note(`  then the catalog update (overlay)`, `${ms(performance.now() - start)} ms of CPU`);
  }

  for (const [name, request] of QUERIES) {
    const times: number[] = [];
    for (let i = 0; i < QUERY_RUNS; i++) {
      const t = performance.now();
      catalog.page(request);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    note(`page: ${name}`, `p50 ${ms(percentile(times, 50))} ms, p99 ${ms(percentile(times, 99))} ms (${catalog.page(request).items.length} items)`);
  }
  console.log(`\nin-memory replica, ${AGENTS} agents`);
  console.table(rows);
  accounts.length = 0;
}

async function postgresPart(): Promise<void> {
  const rows: Record<string, string>[] = [];
  const note = (metric: string, value: string) => rows.push({ metric, value });
  const database = `registry_scale_${process.pid}`;
  const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const sql = postgres(url.href, { max: 4, onnotice: () => {} });
  try {
    await sql`create extension if not exists pg_trgm`;
    await sql`create table agents (
      nft_mint text primary key, owner text not null, uri_lower text not null, tags text[] not null,
      active boolean not null, updated_at bigint not null, item jsonb not null)`;
    let start = performance.now();
    const BATCH = 10_000;
    for (let from = 0; from < AGENTS; from += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, AGENTS - from) }, (_, i) => rowOf(agent(from + i)));
      await insertRows(sql, batch);
    }
    note("load (batched inserts, no indexes)", `${((performance.now() - start) / 1000).toFixed(1)} s`);
    const indexes: [string, string][] = [
      ["list order (updated_at desc, nft_mint desc)", "create index agents_order on agents (updated_at desc, nft_mint desc)"],
      ["owner + order", "create index agents_owner on agents (owner, updated_at desc, nft_mint desc)"],
      ["active + order", "create index agents_active on agents (active, updated_at desc, nft_mint desc)"],
      ["tags (GIN)", "create index agents_tags on agents using gin (tags)"],
      ["q: pg_trgm GIN on the lower-cased URI", "create index agents_uri_trgm on agents using gin (uri_lower gin_trgm_ops)"],
    ];
    for (const [name, ddl] of indexes) {
      start = performance.now();
      await sql.unsafe(ddl);
      note(`index: ${name}`, `${((performance.now() - start) / 1000).toFixed(1)} s`);
    }
    await sql`vacuum analyze agents`;
    const [sizes] = await sql`select pg_size_pretty(pg_table_size('agents')) as heap, pg_size_pretty(pg_indexes_size('agents')) as indexes,
      pg_size_pretty(pg_relation_size('agents_uri_trgm')) as trigram`;
    note("table / all indexes / trigram index", `${sizes?.["heap"]} / ${sizes?.["indexes"]} / ${sizes?.["trigram"]}`);

    const cursor = await sql`select updated_at, nft_mint from agents order by updated_at desc, nft_mint desc offset 19 limit 1`;
    const after = cursor[0] as { updated_at: string; nft_mint: string };
    const pageSql: [string, () => Promise<unknown>][] = [
      ["first page", () => sql`select item from agents order by updated_at desc, nft_mint desc limit 21`],
      ["cursor page 2", () => sql`select item from agents where (updated_at, nft_mint) < (${after.updated_at}, ${after.nft_mint}) order by updated_at desc, nft_mint desc limit 21`],
      ["limit=100", () => sql`select item from agents order by updated_at desc, nft_mint desc limit 101`],
      ["active=true", () => sql`select item from agents where active order by active, updated_at desc, nft_mint desc limit 21`],
      ["category", () => sql`select item from agents where tags @> ${[toHex(TAGS[3] as Uint8Array)]}::text[] order by updated_at desc, nft_mint desc limit 21`],
      ["owner", () => sql`select item from agents where owner = ${address(2, 4242)} order by owner, updated_at desc, nft_mint desc limit 21`],
      ["q rare (a host)", () => sql`select item from agents where uri_lower like ${"%audit-nova7.example%"} order by updated_at desc, nft_mint desc limit 21`],
      ["q common (a word)", () => sql`select item from agents where uri_lower like ${"%oracle%"} order by updated_at desc, nft_mint desc limit 21`],
      ["q absent", () => sql`select item from agents where uri_lower like ${"%zz-nothing%"} order by updated_at desc, nft_mint desc limit 21`],
      ["combined", () => sql`select item from agents where active and tags @> ${[toHex(TAGS[5] as Uint8Array)]}::text[] and uri_lower like ${"%relay%"} order by updated_at desc, nft_mint desc limit 21`],
    ];
    for (const [name, query] of pageSql) {
      const times: number[] = [];
      for (let i = 0; i < Math.min(QUERY_RUNS, 200); i++) {
        const t = performance.now();
        await query();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      note(`page: ${name}`, `p50 ${ms(percentile(times, 50))} ms, p99 ${ms(percentile(times, 99))} ms`);
    }

    // The refresher applying a feed: batches of changed agents, upserted with every index live.
    for (const size of [100, 1_000]) {
      const rounds = 5;
      start = performance.now();
      for (let round = 0; round < rounds; round++) {
        const batch = Array.from({ length: size }, (_, i) => rowOf(agent((round * 104_729 + i * 7_919) % AGENTS, round + 1)));
        await insertRows(sql, batch, true);
      }
      const seconds = (performance.now() - start) / 1000;
      note(`feed: upsert batches of ${size} changed agents`, `${Math.round((size * rounds) / seconds)} agents/s (${ms((seconds * 1000) / rounds)} ms a batch)`);
    }
  } finally {
    await sql.end();
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
  console.log(`\nPostgreSQL ${POSTGRES_URL.replace(/\/\/[^@]*@/, "//")} (scratch database, dropped), ${AGENTS} agents`);
  console.table(rows);
}

type Row = [string, string, string, string[], boolean, string, string];

function rowOf(identity: AgentIdentity): Row {
  const tags = identity.tags.map(toHex);
  const item = { nftMint: identity.nftMint, owner: identity.owner, metadataUri: identity.metadataUri, categories: tags, active: identity.active };
  return [identity.nftMint, identity.owner, identity.metadataUri.toLowerCase(), tags, identity.active, identity.updatedAt.toString(), JSON.stringify(item)];
}

async function insertRows(sql: postgres.Sql, rows: readonly Row[], upsert = false): Promise<void> {
  const column = (i: number) => rows.map((r) => r[i]) as string[];
  const tags = rows.map((r) => `{${r[3].join(",")}}`);
  const onConflict = upsert
    ? sql`on conflict (nft_mint) do update set owner = excluded.owner, uri_lower = excluded.uri_lower, tags = excluded.tags,
        active = excluded.active, updated_at = excluded.updated_at, item = excluded.item`
    : sql``;
  await sql`insert into agents (nft_mint, owner, uri_lower, tags, active, updated_at, item)
    select n, o, u, t::text[], a, ud, i
    from unnest(${column(0)}::text[], ${column(1)}::text[], ${column(2)}::text[], ${tags}::text[],
      ${rows.map((r) => String(r[4]))}::text[]::boolean[], ${column(5)}::bigint[], ${column(6)}::jsonb[]) as x(n, o, u, t, a, ud, i)
    ${onConflict}`;
}

console.log(`registry scale simulation: ${AGENTS} agents, Bun ${Bun.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
if (PARTS.has("memory")) await memoryPart();
if (PARTS.has("postgres")) await postgresPart();
console.log(`load average at end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
