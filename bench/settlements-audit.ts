/**
 * `settlements:audit` cost: records audited per second against PostgreSQL and the embedded
 * ledger's JSON-RPC (a bench database created and dropped here), and the start-up cost the
 * payment-identifier extension would add if the service imported @x402/extensions instead of
 * restating its four constants (docs/settlement.md, "The payment-identifier extension").
 *
 * Each round runs the two imports in fresh `bun` processes, alternating, then the audit of the
 * same window in process. Prints every sample, the median and the spread (min..max) and the load
 * average: the machine is shared and noisy, so compare medians of one run only.
 *
 *   bun run bench/settlements-audit.ts [records=10000] [rounds=5]
 */
import { resolve } from "node:path";
import { getBase58Decoder } from "@solana/kit";
import postgres from "postgres";
import { auditSettlements } from "../src/application/settlement/audit-settlements.ts";
import { SOLANA_DEVNET } from "../src/domain/networks.ts";
import { createLocalLedger, serveLocalLedgerRpc } from "../src/infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../src/infrastructure/ledger/rpc-ledger.ts";
import { openStore } from "../src/infrastructure/store/index.ts";
import { createSqlSettlementHistory } from "../src/infrastructure/store/sql-settlement-history.ts";
import { loadAverage, median } from "./service-process.ts";

const records = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const ADMIN_URL = process.env["TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROOT = resolve(import.meta.dir, "..");

const IMPORTS = {
  "@x402/extensions/payment-identifier": 'await import("@x402/extensions/payment-identifier")',
  "the restated constants": 'await import("./src/http/facilitator/payment-identifier-extension.ts")',
} as const;

/** Milliseconds one fresh process spends importing `what` (measured inside it, so bun's own start is excluded). */
function importMs(what: string): number {
  const script = `const t = performance.now(); ${what}; console.log(performance.now() - t);`;
  const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT });
  return Number(run.stdout.toString().trim());
}

function line(label: string, samples: readonly number[], unit: string): string {
  const fixed = samples.map((s) => s.toFixed(1));
  return `${label.padEnd(44)} median ${median(samples).toFixed(1).padStart(8)} ${unit}   spread ${Math.min(...samples).toFixed(1)}..${Math.max(...samples).toFixed(1)}   (${fixed.join(", ")})`;
}

const database = `audit_bench_${process.pid}`;
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${database}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;
const store = await openStore({ databaseUrl: url.toString(), maxConnections: 2 });
const ledger = createLocalLedger();
const rpc = serveLocalLedgerRpc(ledger, { port: 0 });
try {
  // Failed records whose (random) signatures the ledger never saw: every one is compared and agrees.
  const signatures = Array.from({ length: records }, () => getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64))));
  await store.executor.query(
    `INSERT INTO settlements (key, payer, pay_to, asset, amount, network, mode, signature, state, error)
     SELECT 'bench-' || i, 'payer', 'payTo', 'asset', 1, $1, 'standard', s, 'failed', 'bench'
       FROM unnest($2::text[]) WITH ORDINALITY AS t(s, i)`,
    [SOLANA_DEVNET, `{${signatures.join(",")}}`],
  );
  const since = new Date(Date.now() - 3_600_000);
  const samples: Record<string, number[]> = { audit: [], ...Object.fromEntries(Object.keys(IMPORTS).map((k) => [k, [] as number[]])) };
  for (let round = 0; round < rounds; round++) {
    for (const [label, what] of round % 2 === 0 ? Object.entries(IMPORTS) : Object.entries(IMPORTS).reverse()) samples[label]?.push(importMs(what));
    const started = performance.now();
    const summary = await auditSettlements({ history: createSqlSettlementHistory(store.executor), ledger: createRpcLedger({ url: rpc.url }), network: SOLANA_DEVNET }, since, () => {});
    if (summary.examined !== records || summary.disagree !== 0) throw new Error(`audited ${summary.examined} records, ${summary.disagree} disagreements`);
    samples["audit"]?.push(performance.now() - started);
  }
  console.log(`bun ${Bun.version}; ${records} records, ${rounds} rounds; load ${loadAverage()} at the end`);
  for (const label of Object.keys(IMPORTS)) console.log(line(`import ${label}`, samples[label] ?? [], "ms"));
  const audit = samples["audit"] ?? [];
  console.log(line(`audit of ${records} records (${Math.ceil(records / 256)} status reads)`, audit, "ms"));
  console.log(`audit throughput: median ${((records / median(audit)) * 1000).toFixed(0)} records/s`);
} finally {
  await rpc.stop();
  await store.close();
  await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end({ timeout: 1 });
}
