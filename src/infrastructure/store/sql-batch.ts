import { sqlStateOf } from "./sql-executor.ts";

/**
 * A PostgreSQL array literal, for one `$n::text[]` (or `::numeric[]`, `::bigint[]`) parameter
 * carrying a whole batch. Both drivers take it as a plain string; null becomes an unquoted NULL
 * element, everything else is quoted, so any text is safe.
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? "NULL" : `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`)).join(",")}}`;
}

/** SQLSTATE 40P01: the server broke a lock cycle by aborting this statement. */
const DEADLOCK_DETECTED = "40P01";

/**
 * Runs one multi-row statement, again if PostgreSQL aborted it to break a deadlock. Two replicas'
 * batches can lock overlapping rows in different orders (finishes of the same records, say); the
 * aborted statement changed nothing, so running it again is safe.
 */
export async function retryDeadlock<T>(statement: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await statement();
    } catch (error) {
      if (attempt >= attempts || sqlStateOf(error) !== DEADLOCK_DETECTED) throw error;
    }
  }
}
