import type { WindowCounters } from "../../application/ports/window-counters.ts";
import type { SqlQueryable } from "./sql-executor.ts";

// Rows are inserted in scope order, so two statements never lock the same rows in opposite
// orders (no deadlock between a payer's and a fee payer's counters).
const ADD = `
  INSERT INTO fee_budget_windows AS w (scope, window_id, spent)
  SELECT scope, $1::bigint, $2::numeric FROM unnest($3::text[]) AS scope ORDER BY scope
  ON CONFLICT (scope, window_id) DO UPDATE SET spent = w.spent + EXCLUDED.spent
  RETURNING scope, spent::text AS spent`;

const SUBTRACT = `
  UPDATE fee_budget_windows SET spent = GREATEST(spent - $2::numeric, 0)
   WHERE window_id = $1::bigint AND scope = ANY($3::text[])`;

// Windows older than the previous one are never read again. Only this namespace's rows: window
// numbers of counters with other window lengths are not comparable.
const PRUNE = `DELETE FROM fee_budget_windows WHERE starts_with(scope, $2) AND window_id < $1::bigint`;

/**
 * Window counters in the settlement database: one statement per add, shared by replicas.
 * `namespace` keeps counters with different window lengths (fee budgets per hour, rate limits
 * per minute) apart in the one table.
 */
export function createSqlWindowCounters(db: SqlQueryable, namespace = "fee-budget"): WindowCounters {
  const prefix = `${namespace}/`;
  const qualified = (scopes: readonly string[]) => scopes.map((scope) => prefix + scope);
  let prunedBefore = -1;
  return Object.freeze({
    async add(window: number, scopes: readonly string[], amount: bigint): Promise<readonly bigint[]> {
      if (window - 1 > prunedBefore) {
        prunedBefore = window - 1;
        await db.query(PRUNE, [String(prunedBefore), prefix]);
      }
      const rows = await db.query(ADD, [String(window), amount.toString(), toTextArray(qualified(scopes))]);
      const totals = new Map(rows.map((row) => [String(row["scope"]), BigInt(String(row["spent"]))]));
      return scopes.map((scope) => totals.get(prefix + scope) ?? 0n);
    },
    async subtract(window: number, scopes: readonly string[], amount: bigint): Promise<void> {
      await db.query(SUBTRACT, [String(window), amount.toString(), toTextArray(qualified(scopes))]);
    },
  });
}

/**
 * A PostgreSQL array literal. Both drivers take it for `$n::text[]`; scopes are addresses with a
 * prefix, but quoting keeps any text safe.
 */
function toTextArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`;
}
