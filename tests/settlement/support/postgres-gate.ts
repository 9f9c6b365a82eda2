import { ADMIN_URL, probePostgres } from "../../store/postgres-harness.ts";

export { createTestDatabase, type TestDatabase } from "../../store/postgres-harness.ts";

/**
 * Whether the real PostgreSQL tests run. Unreachable PostgreSQL skips them with a printed
 * reason locally and fails them under CI (the same gate as tests/store).
 */
export async function postgresGate(area: string): Promise<Readonly<{ run: boolean; failInCi: string | null }>> {
  const reachability = await probePostgres();
  if (reachability.ok) return { run: true, failInCi: null };
  const where = new URL(ADMIN_URL).host;
  const inCi = process.env["CI"] === "true" || process.env["CI"] === "1";
  if (inCi) return { run: false, failInCi: `PostgreSQL is not reachable at ${where} (${reachability.reason}); CI requires it.` };
  console.warn(`[${area}] SKIPPING PostgreSQL tests: not reachable at ${where} (${reachability.reason}). They fail instead when CI=true.`);
  return { run: false, failInCi: null };
}
