/**
 * Benchmark (not a test): what the webhook outbox adds to the statement that finishes settlements.
 *
 *   npx bun bench/outbox-cost.ts [--n 2000] [--c 64] [--rounds 5]
 *
 * On a fresh PostgreSQL database (bench_settle_<random> on TEST_POSTGRES_URL, dropped at the end),
 * each round claims N records and finishes them at concurrency C through the SQL settlement store,
 * once without webhooks and once with one webhook subscribed to confirmed and failed (so every
 * finish also inserts an outbox row in the same statement, a data-modifying CTE). The order of the
 * two alternates per round. Printed: finish wall time per settlement, and the statements the store
 * sent per settlement (the outbox adds none), as median and spread over the rounds. Only the store
 * path is timed: the ledger, signing and HTTP are left out so the CTE's cost is not lost in them.
 */
import { loadavg } from "node:os";
import { draft } from "../fixtures/settlement-drafts.ts";
import { type SqlExecutor, createPostgresExecutor, createSqlSettlementStore, openStore } from "../src/infrastructure/store/index.ts";
import { createBenchDatabase } from "./settle-rig.ts";

const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const N = flag("n", 2000);
const C = flag("c", 64);
const ROUNDS = flag("rounds", 5);

/** A settlement of realistic size (a 300-byte wire transaction), fresh key, no paymentId. */
const draftOf = () => draft({ paymentId: null, wireTransaction: "AQID".repeat(100) });

/** Counts statements, so the figure shows the outbox costs no extra round trip. */
function counting(executor: SqlExecutor): { executor: SqlExecutor; count(): number; reset(): void } {
  let statements = 0;
  return {
    executor: { ...executor, query: (text, params) => ((statements += 1), executor.query(text, params)) },
    count: () => statements,
    reset: () => void (statements = 0),
  };
}

async function pool<T>(items: readonly T[], concurrency: number, run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await run(items[next++] as T);
  }));
}

const database = await createBenchDatabase(ADMIN_URL);
const migrated = await openStore({ databaseUrl: database.url });
await migrated.close();
const counted = counting(createPostgresExecutor({ databaseUrl: database.url, maxConnections: 10 }));
const stores = {
  plain: createSqlSettlementStore(counted.executor),
  outbox: createSqlSettlementStore(counted.executor, { webhooks: [{ id: "bench", events: ["settlement.confirmed", "settlement.failed"], apiKey: null }] }),
};
const results: Record<keyof typeof stores, { usPerSettlement: number[]; statements: number[] }> = { plain: { usPerSettlement: [], statements: [] }, outbox: { usPerSettlement: [], statements: [] } };
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
console.log(`outbox-cost: ${N} finishes per phase at concurrency ${C}, ${ROUNDS} rounds (order alternates); load average ${load()}`);
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = (round % 2 === 0 ? ["plain", "outbox"] : ["outbox", "plain"]) as (keyof typeof stores)[];
    for (const mode of order) {
      const store = stores[mode];
      const drafts = Array.from({ length: N }, draftOf);
      await pool(drafts, C, (d) => store.claim(d));
      counted.reset();
      const started = performance.now();
      await pool(drafts, C, (d) => store.finish(d.key, d.signature, { state: "settled" }, { slot: 123n, submittedAt: new Date() }));
      const ms = performance.now() - started;
      results[mode].usPerSettlement.push((ms * 1000) / N);
      results[mode].statements.push(counted.count() / N);
      console.log(`  round ${round + 1} ${mode.padEnd(6)} finish ${((ms * 1000) / N).toFixed(0).padStart(5)} µs/settlement  statements/settlement ${(counted.count() / N).toFixed(3)}`);
    }
  }
  const [outboxRows] = await counted.executor.query("SELECT count(*)::integer AS n FROM webhook_outbox");
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
  for (const mode of ["plain", "outbox"] as const) {
    const r = results[mode];
    console.log(`${mode.padEnd(6)} finish median ${median(r.usPerSettlement).toFixed(0)} µs/settlement (spread ${spread(r.usPerSettlement)}), statements/settlement median ${median(r.statements).toFixed(3)}`);
  }
  const ratios = results.outbox.usPerSettlement.map((v, i) => v - (results.plain.usPerSettlement[i] ?? 0));
  console.log(`outbox - plain, per round: ${ratios.map((r) => r.toFixed(0)).join(", ")} µs/settlement; median ${median(ratios).toFixed(0)}`);
  console.log(`outbox rows written: ${String(outboxRows?.["n"])} (expected ${N * ROUNDS}); load average at the end ${load()}`);
} finally {
  await counted.executor.close();
  await database.drop();
}
