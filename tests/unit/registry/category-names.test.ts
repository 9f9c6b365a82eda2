import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCategoryNames } from "../../../src/application/registry/category-names.ts";
import { DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { loadCategoryNames } from "../../../src/infrastructure/registry/categories-file.ts";

const dir = mkdtempSync(join(tmpdir(), "registry-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("registry categories (pure parser; categories file on the real filesystem); the other registry settings are parsed with the rest of the configuration (tests/config)", () => {
  test("categories file: array of names, deduplicated; bad files refused", async () => {
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify(["defi", "robots", "defi"]));
    expect(await loadCategoryNames(good)).toEqual(["defi", "robots"]);
    expect(await loadCategoryNames(null)).toEqual(DEFAULT_CATEGORY_NAMES);
    await expect(loadCategoryNames(join(dir, "missing.json"))).rejects.toThrow("ENOENT");
    for (const text of ["{}", "[]", "[1]", '[""]', `["${"x".repeat(33)}"]`, "not json"]) {
      expect(() => parseCategoryNames(text)).toThrow("REGISTRY_CATEGORIES_FILE");
    }
  });
});
