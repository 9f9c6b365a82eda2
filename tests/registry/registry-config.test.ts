import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCategoryNames, parseRegistryConfig } from "../../src/application/registry/registry-config.ts";
import { DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { loadCategoryNames } from "../../src/infrastructure/registry/categories-file.ts";

const dir = mkdtempSync(join(tmpdir(), "registry-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("registry configuration (pure parser; categories file on the real filesystem)", () => {
  test("defaults", () => {
    const config = parseRegistryConfig({});
    expect<string>(config.programId).toBe("X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5");
    expect(config.ttlMs).toBe(30_000);
    expect(config.categoriesFile).toBeNull();
  });

  test("explicit values and rejections", () => {
    const config = parseRegistryConfig({ REGISTRY_PROGRAM_ID: "11111111111111111111111111111111", REGISTRY_CACHE_TTL_SECONDS: "5", REGISTRY_CATEGORIES_FILE: "/etc/cats.json" });
    expect(config).toMatchObject({ programId: "11111111111111111111111111111111", ttlMs: 5_000, categoriesFile: "/etc/cats.json" });
    expect(() => parseRegistryConfig({ REGISTRY_PROGRAM_ID: "nope" })).toThrow("REGISTRY_PROGRAM_ID");
    expect(() => parseRegistryConfig({ REGISTRY_CACHE_TTL_SECONDS: "-1" })).toThrow("REGISTRY_CACHE_TTL_SECONDS");
    expect(() => parseRegistryConfig({ REGISTRY_CACHE_TTL_SECONDS: "soon" })).toThrow("REGISTRY_CACHE_TTL_SECONDS");
  });

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
