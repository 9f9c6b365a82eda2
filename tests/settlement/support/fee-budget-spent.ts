import type { SqlQueryable } from "../../../src/infrastructure/store/sql-executor.ts";

/**
 * Lamports the fee budget holds for one scope (`payer:<owner>` or `fee-payer:<address>`), summed
 * over every window, as the database counters store it (the service's `fee-budget` namespace).
 */
export async function feeBudgetSpent(db: SqlQueryable, scope: string): Promise<bigint> {
  const rows = await db.query("SELECT coalesce(sum(spent), 0)::text AS spent FROM fee_budget_windows WHERE scope = $1", [`fee-budget/${scope}`]);
  return BigInt(String(rows[0]?.["spent"] ?? "0"));
}
