import type { StoreOptions } from "./open-store.ts";

export type StoreEnv = Readonly<Record<string, string | undefined>>;

export const DEFAULT_DATA_DIR = "./.data";

/**
 * DATABASE_URL set -> PostgreSQL; unset or empty -> PGlite under DATA_DIR (default ./.data).
 * DATABASE_POOL_MAX optionally sizes the PostgreSQL pool. Pure: main.ts passes process.env.
 */
export function storeOptionsFromEnv(env: StoreEnv): StoreOptions {
  const databaseUrl = nonEmpty(env["DATABASE_URL"]);
  const dataDir = nonEmpty(env["DATA_DIR"]) ?? DEFAULT_DATA_DIR;
  const poolMax = nonEmpty(env["DATABASE_POOL_MAX"]);
  return Object.freeze({
    dataDir,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(poolMax === undefined ? {} : { maxConnections: parsePoolMax(poolMax) }),
  });
}

function parsePoolMax(raw: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1 || value > 1000) {
    throw new Error(`DATABASE_POOL_MAX must be an integer from 1 to 1000, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
