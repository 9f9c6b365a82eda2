import { DEFAULT_CATEGORY_NAMES } from "../../domain/registry/categories.ts";

const MAX_CATEGORIES = 256;
const MAX_CATEGORY_NAME_LENGTH = 32;

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
