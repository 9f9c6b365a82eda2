import { isAddress, type Address } from "@solana/kit";
import { DEFAULT_CATEGORY_NAMES } from "../../domain/registry/categories.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../domain/registry/pdas.ts";

export type RegistryConfig = Readonly<{
  programId: Address;
  ttlMs: number;
  /** Path of a JSON file holding an array of category names; null for the built-in set. */
  categoriesFile: string | null;
}>;

export type EnvRecord = Readonly<Record<string, string | undefined>>;

const DEFAULT_TTL_SECONDS = 30;
const MAX_TTL_SECONDS = 3600;
const MAX_CATEGORIES = 256;
const MAX_CATEGORY_NAME_LENGTH = 32;

/** Reads `REGISTRY_PROGRAM_ID`, `REGISTRY_CACHE_TTL_SECONDS`, `REGISTRY_CATEGORIES_FILE`. Throws on bad values. */
export function parseRegistryConfig(env: EnvRecord): RegistryConfig {
  const programId = nonEmpty(env.REGISTRY_PROGRAM_ID) ?? DEFAULT_REGISTRY_PROGRAM_ID;
  if (!isAddress(programId)) throw new Error("REGISTRY_PROGRAM_ID is not a base58 address");
  return Object.freeze({
    programId,
    ttlMs: parseTtlSeconds(nonEmpty(env.REGISTRY_CACHE_TTL_SECONDS)) * 1000,
    categoriesFile: nonEmpty(env.REGISTRY_CATEGORIES_FILE) ?? null,
  });
}

/** Parses the categories file text: a JSON array of distinct non-empty names of at most 32 characters. */
export function parseCategoryNames(json: string | null): readonly string[] {
  if (json === null) return DEFAULT_CATEGORY_NAMES;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error("REGISTRY_CATEGORIES_FILE is not valid JSON");
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CATEGORIES) {
    throw new Error(`REGISTRY_CATEGORIES_FILE must hold a JSON array of 1..${MAX_CATEGORIES} names`);
  }
  const names = value.map((name, i) => {
    if (typeof name !== "string" || name.trim() === "" || name.length > MAX_CATEGORY_NAME_LENGTH) {
      throw new Error(`REGISTRY_CATEGORIES_FILE entry ${i} must be a non-empty string of at most ${MAX_CATEGORY_NAME_LENGTH} characters`);
    }
    return name;
  });
  return Object.freeze([...new Set(names)]);
}

function parseTtlSeconds(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TTL_SECONDS;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_TTL_SECONDS) {
    throw new Error(`REGISTRY_CACHE_TTL_SECONDS must be a number from 0 to ${MAX_TTL_SECONDS}`);
  }
  return seconds;
}

function nonEmpty(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === "" ? undefined : trimmed;
}
