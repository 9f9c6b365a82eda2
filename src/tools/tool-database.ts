/**
 * The database a one-shot tool (`migrate`, `settlements:audit`) opens: DATABASE_URL or the
 * embedded one in DATA_DIR, one connection, named for operators without its password.
 */
import type { AppConfig } from "../infrastructure/config/app-config.ts";
import { describeDatabaseUrl } from "../infrastructure/logging/redact.ts";
import { openDatabase } from "../infrastructure/store/open-store.ts";
import type { SqlExecutor } from "../infrastructure/store/sql-executor.ts";

export type ToolDatabase = Readonly<{ executor: SqlExecutor; target: string }>;

/** The opened database and its redacted name, or null after printing `FAIL store <target>: <why>`. */
export async function openToolDatabase(config: Pick<AppConfig, "DATABASE_URL" | "DATA_DIR">, print: (line: string) => void): Promise<ToolDatabase | null> {
  const target = config.DATABASE_URL ? describeDatabaseUrl(config.DATABASE_URL) : `embedded database in ${config.DATA_DIR}`;
  try {
    const executor = await openDatabase({ dataDir: config.DATA_DIR, maxConnections: 1, ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}) });
    return { executor, target };
  } catch (error) {
    print(`FAIL store ${target}: ${messageOf(error)}`);
    return null;
  }
}

/** Driver messages name objects and settings; the connection URL never reaches them (StoreUnavailableError redacts it). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
