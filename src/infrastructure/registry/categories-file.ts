import { readFile } from "node:fs/promises";
import { parseCategoryNames } from "../../application/registry/category-names.ts";

/** Category names from `REGISTRY_CATEGORIES_FILE`, or the built-in set when no file is configured. */
export async function loadCategoryNames(path: string | null): Promise<readonly string[]> {
  if (path === null) return parseCategoryNames(null);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = error && typeof error === "object" && "code" in error ? String(error.code) : "read error";
    throw new Error(`REGISTRY_CATEGORIES_FILE cannot be read (${code})`);
  }
  return parseCategoryNames(text);
}
