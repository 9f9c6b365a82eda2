import type { AssetVolume, PaymentStats, PaymentsSummary, SettledReceipt } from "../../application/ports/payment-stats.ts";
import type { SqlQueryable, SqlRow } from "./sql-executor.ts";

// Settled records of this network only (two environments may share a database). Amounts are
// summed as numeric and read back as text: a u64 sum is exact, never a float.
const PER_ASSET = `
  SELECT asset,
         count(*)::integer AS n, sum(amount)::text AS volume,
         count(*) FILTER (WHERE updated_at > now() - interval '30 days')::integer AS n30,
         COALESCE(sum(amount) FILTER (WHERE updated_at > now() - interval '30 days'), 0)::text AS volume30,
         min(updated_at) AS first_at, max(updated_at) AS last_at
    FROM settlements
   WHERE pay_to = $1 AND network = $2 AND state = 'settled'
   GROUP BY asset ORDER BY asset`;

const DISTINCT_PAYERS = `SELECT count(DISTINCT payer)::integer AS payers FROM settlements WHERE pay_to = $1 AND network = $2 AND state = 'settled'`;

const COUNTS_BY_PAY_TO = `SELECT pay_to, count(*)::integer AS n FROM settlements WHERE network = $1 AND state = 'settled' GROUP BY pay_to`;

// The receipts travel as one JSON array in a text parameter, as in the feedback detail store.
const SETTLED_RECEIPTS = `
  SELECT receipt, asset, amount::text AS amount FROM settlements
   WHERE receipt IN (SELECT jsonb_array_elements_text($1::text::jsonb)) AND network = $2 AND state = 'settled'`;

/** Receipts per lookup: keeps one statement's parameter small whatever an agent's feedback count. */
const RECEIPTS_PER_LOOKUP = 500;

/** Aggregates over the settlements table (served by settlements_settled_pay_to_idx, migration 12, and settlements_receipt_idx, migration 13). */
export function createSqlPaymentStats(db: SqlQueryable, network: string): PaymentStats {
  return Object.freeze({
    async summaryFor(payTo: string): Promise<PaymentsSummary> {
      const rows = await db.query(PER_ASSET, [payTo, network]);
      const [payers] = await db.query(DISTINCT_PAYERS, [payTo, network]);
      const volume = (key: string): AssetVolume[] => rows.filter((row) => BigInt(String(row[key])) > 0n).map((row) => ({ asset: String(row["asset"]), amount: String(row[key]) }));
      const times = rows.flatMap((row) => [timeOf(row, "first_at"), timeOf(row, "last_at")]).filter((t): t is number => t !== null);
      return {
        count: sum(rows, "n"),
        volume: volume("volume"),
        distinctPayers: Number(payers?.["payers"] ?? 0),
        last30Days: { count: sum(rows, "n30"), volume: volume("volume30") },
        firstAt: times.length > 0 ? new Date(Math.min(...times)).toISOString() : null,
        lastAt: times.length > 0 ? new Date(Math.max(...times)).toISOString() : null,
      };
    },
    async countsByPayTo(): Promise<ReadonlyMap<string, number>> {
      const rows = await db.query(COUNTS_BY_PAY_TO, [network]);
      return new Map(rows.map((row) => [String(row["pay_to"]), Number(row["n"])]));
    },
    async settledReceipts(receipts: readonly string[]): Promise<ReadonlyMap<string, readonly SettledReceipt[]>> {
      const settled = new Map<string, SettledReceipt[]>();
      for (let i = 0; i < receipts.length; i += RECEIPTS_PER_LOOKUP) {
        const rows = await db.query(SETTLED_RECEIPTS, [JSON.stringify(receipts.slice(i, i + RECEIPTS_PER_LOOKUP)), network]);
        for (const row of rows) {
          const receipt = String(row["receipt"]);
          const found = settled.get(receipt) ?? [];
          found.push(Object.freeze({ asset: String(row["asset"]), amount: String(row["amount"]) }));
          settled.set(receipt, found);
        }
      }
      return settled;
    },
  });
}

function sum(rows: readonly SqlRow[], key: string): number {
  return rows.reduce((total, row) => total + Number(row[key] ?? 0), 0);
}

function timeOf(row: SqlRow, key: string): number | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(String(value))).getTime();
}
