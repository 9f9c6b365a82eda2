import type { Metrics } from "../../application/ports/metrics.ts";
import type { OpenedStore } from "../store/open-store.ts";
import type { SqlExecutor, SqlQueryable } from "../store/sql-executor.ts";
import { createSqlSettlementStore } from "../store/sql-settlement-store.ts";
import { countCorrections } from "./settlement-record-metrics.ts";
import { timed } from "./timed.ts";

export const STORE_DURATION = "x402_store_query_duration_seconds";

/**
 * The store with every statement timed by operation (the SQL verb), table and outcome. The
 * `postgres` client keeps its pool's counts (open, idle, waiting) private, so statement latency is
 * what the store exposes; a pool running out shows as rising latency here. The settlement store is
 * rebuilt over the timed executor, so its statements are measured like every other store's, and
 * its corrections (a failed record the ledger showed landed) are counted.
 */
export function instrumentStore(store: OpenedStore, metrics: Metrics): OpenedStore {
  const executor = timedExecutor(store.executor, metrics);
  return Object.freeze({
    ...store,
    executor,
    settlements: countCorrections(createSqlSettlementStore(executor, store.settlementOptions), metrics),
    ping: async () => void (await executor.query("SELECT 1")),
  });
}

export function timedExecutor(executor: SqlExecutor, metrics: Metrics): SqlExecutor {
  const report = (operation: string, table: string) => (outcome: string, seconds: number) =>
    metrics.observe(STORE_DURATION, "Database statement latency, by operation, table and outcome", { operation, table, outcome }, seconds);
  const queryable = (inner: SqlQueryable): SqlQueryable =>
    Object.freeze({
      query: (text: string, params?: Parameters<SqlQueryable["query"]>[1]) => timed(() => inner.query(text, params), report(...statementOf(text))),
      exec: (script: string) => timed(() => inner.exec(script), report("exec", "none")),
    });
  return Object.freeze({
    ...executor,
    ...queryable(executor),
    transaction: <T>(fn: (tx: SqlQueryable) => Promise<T>) => timed(() => executor.transaction((tx) => fn(queryable(tx))), report("transaction", "none")),
  });
}

const VERB = /^\s*([a-z]+)/i;
const TABLE = /\b(?:from|into|update)\s+([a-z_][a-z0-9_]*)/i;
const VERBS = new Set(["select", "insert", "update", "delete", "with"]);

/** Verb and first table of a statement; both come from SQL written in this code base, so the label set stays small. */
export function statementOf(text: string): [operation: string, table: string] {
  const verb = VERB.exec(text)?.[1]?.toLowerCase() ?? "";
  return [VERBS.has(verb) ? verb : "other", TABLE.exec(text)?.[1]?.toLowerCase() ?? "none"];
}
