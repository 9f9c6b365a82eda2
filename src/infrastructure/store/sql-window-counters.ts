import type { WindowCounters } from "../../application/ports/window-counters.ts";
import { CodedError, isCoded } from "../../domain/coded-error.ts";
import { createBatcher } from "../../application/settlement/batcher.ts";
import { arrayLiteral, retryDeadlock } from "./sql-batch.ts";
import type { SqlQueryable } from "./sql-executor.ts";

// One row per (scope, window) of the whole batch, inserted in scope order, so two statements
// never lock the same rows in opposite orders (no deadlock between a payer's and a fee payer's
// counters, nor between two replicas' batches).
//
// SECURITY: the statement commits without waiting for its WAL flush (`synchronous_commit` off for
// its own transaction only: `set_config(..., true)`, joined so it runs before the insert). A flush
// was 0.5-4.7 ms of every settlement's wait. Durability of the fee budget is unchanged where it
// matters: nothing is sent before the settlement's claim, a synchronous commit, and PostgreSQL
// flushes the WAL in order, so that claim's flush carries every charge committed before it. A
// charge lost in a database crash belongs to a settlement that never sent (its claim cannot have
// been flushed first). What a crash can lose is the last moment's refused-attempt penalties and
// rate-limit counts (documented in docs/store.md), never a charge behind a sent transaction.
const ADD = `
  INSERT INTO fee_budget_windows AS w (scope, window_id, spent)
  SELECT scope, window_id, spent
    FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit,
         unnest($1::text[], $2::bigint[], $3::numeric[]) AS t(scope, window_id, spent)
   ORDER BY scope, window_id
  ON CONFLICT (scope, window_id) DO UPDATE SET spent = w.spent + EXCLUDED.spent
  RETURNING scope, window_id::text AS window_id, spent::text AS spent`;

const SUBTRACT = `
  UPDATE fee_budget_windows AS w SET spent = GREATEST(w.spent - t.amount, 0)
    FROM unnest($1::text[], $2::bigint[], $3::numeric[]) AS t(scope, window_id, amount)
   WHERE w.scope = t.scope AND w.window_id = t.window_id`;

// Windows older than the previous one are never read again. Only this namespace's rows: window
// numbers of counters with other window lengths are not comparable.
const PRUNE = `DELETE FROM fee_budget_windows WHERE starts_with(scope, $2) AND window_id < $1::bigint`;

const MAX_CALLS_PER_STATEMENT = 500;
/** Charge statements running at once per process (see `add` below). */
const CHARGES_IN_FLIGHT = 2;

type Change = Readonly<{ window: number; scopes: readonly string[]; amount: bigint }>;

/**
 * Window counters in the settlement database, shared by replicas. Concurrent calls are grouped
 * (batcher.ts): one statement adds a whole batch, one subtracts one. `namespace` keeps counters
 * with different window lengths (fee budgets per hour, rate limits per minute) apart in the one
 * table.
 *
 * SECURITY: a batch is exactly as strict as its calls made one after the other. The statement
 * adds each counter's batch total at once (row-locked, on the latest committed value) and
 * returns the new total T; the call at position i gets T - (the batch's total for that counter)
 * + (the amounts of calls 0..i on it): the total it would have seen had the calls run alone, in
 * batch order, with nobody in between. The fee budget's add-then-compare stays exact.
 */
export function createSqlWindowCounters(db: SqlQueryable, namespace = "fee-budget"): WindowCounters {
  const prefix = `${namespace}/`;
  let prunedBefore = -1;

  /**
   * Beside the batch's ADD, not before it: it deletes windows older than any the batch touches, so
   * the two never meet a row, and the first charge of a window waits for one round trip, not two.
   * A failed prune is tried again by the next batch; it never fails a charge.
   */
  async function prune(newest: number): Promise<void> {
    if (newest - 1 <= prunedBefore) return;
    const previous = prunedBefore;
    prunedBefore = newest - 1;
    try {
      await db.query(PRUNE, [String(prunedBefore), prefix]);
    } catch {
      prunedBefore = Math.min(prunedBefore, previous);
    }
  }

  async function addMany(changes: readonly Change[]): Promise<readonly (readonly bigint[])[]> {
    const pruned = prune(Math.max(...changes.map((c) => c.window)));
    const sums = sumPerCounter(changes, prefix);
    const [rows] = await Promise.all([retryDeadlock(() => db.query(ADD, counterParams(sums))), pruned]);
    const totals = new Map(rows.map((row) => [counterKey(String(row["scope"]), Number(row["window_id"])), BigInt(String(row["spent"]))]));
    // Before the batch: the new total minus everything this batch added to that counter.
    const running = new Map([...sums].map(([key, sum]) => [key, (totals.get(key) ?? sum.amount) - sum.amount]));
    return changes.map((change) => {
      const mine = new Map<string, bigint>();
      for (const scope of new Set(change.scopes)) {
        const key = counterKey(prefix + scope, change.window);
        const total = (running.get(key) ?? 0n) + change.amount;
        running.set(key, total);
        mine.set(scope, total);
      }
      return change.scopes.map((scope) => mine.get(scope) ?? 0n);
    });
  }

  async function subtractMany(changes: readonly Change[]): Promise<readonly void[]> {
    await retryDeadlock(() => db.query(SUBTRACT, counterParams(sumPerCounter(changes, prefix))));
    return changes.map(() => undefined);
  }

  // Two charges in flight, as claims and finishes: since simulation-before-signing the charge runs
  // after the ledger reads, in sequence on every settlement's path, and with one a settlement that
  // arrives just after a batch left waits for two commits. The second statement meets the first
  // on the fee payer's row lock and adds to its committed total, exactly as two replicas' batches
  // do (the SECURITY note above), so the add-then-compare stays exact.
  const add = createBatcher(addMany, { maxBatch: MAX_CALLS_PER_STATEMENT, maxInFlight: CHARGES_IN_FLIGHT });
  const subtract = createBatcher(subtractMany, { maxBatch: MAX_CALLS_PER_STATEMENT });
  return Object.freeze({
    add: (window: number, scopes: readonly string[], amount: bigint) => countersError(add({ window, scopes, amount })),
    subtract: (window: number, scopes: readonly string[], amount: bigint) => countersError(subtract({ window, scopes, amount })),
  });
}

/**
 * The database being unreachable is the counters being unavailable (COUNTERS_UNAVAILABLE), so the
 * limits built on them fail closed the same way whichever store holds them. SECURITY: the store's
 * message names DATABASE_URL's host and database; this one reaches clients, so it names neither
 * (the store error stays as `cause`, for the log).
 */
async function countersError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isCoded(error, "STORE_UNAVAILABLE")) throw error;
    throw new CodedError("COUNTERS_UNAVAILABLE", "the shared counters are unavailable (the database cannot be reached); retry shortly", { cause: error });
  }
}

type CounterSum = { readonly scope: string; readonly window: number; amount: bigint };

const counterKey = (scope: string, window: number) => `${window}\u0000${scope}`;

/** The batch's total per (scope, window): one statement may touch each row only once. */
function sumPerCounter(changes: readonly Change[], prefix: string): Map<string, CounterSum> {
  const sums = new Map<string, CounterSum>();
  for (const change of changes) {
    for (const scope of new Set(change.scopes)) {
      const key = counterKey(prefix + scope, change.window);
      const sum = sums.get(key);
      if (sum) sum.amount += change.amount;
      else sums.set(key, { scope: prefix + scope, window: change.window, amount: change.amount });
    }
  }
  return sums;
}

function counterParams(sums: ReadonlyMap<string, CounterSum>): string[] {
  const list = [...sums.values()];
  return [arrayLiteral(list.map((s) => s.scope)), arrayLiteral(list.map((s) => String(s.window))), arrayLiteral(list.map((s) => s.amount.toString()))];
}
