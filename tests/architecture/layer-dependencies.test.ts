import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

// The rules live in .dependency-cruiser.cjs (also run by `npm run lint:deps`); this test runs the
// same cruise through dependency-cruiser's API, and proves on a fixture that every rule can fail.
const ROOT = resolve(import.meta.dir, "../..");
const FIXTURE = resolve(import.meta.dir, "fixtures/violating");

async function rules(): Promise<ICruiseOptions> {
  return extractDepcruiseOptions(resolve(ROOT, ".dependency-cruiser.cjs"));
}

async function cruiseSrc(baseDir: string, options: ICruiseOptions): Promise<ICruiseResult> {
  const tsConfig = extractTSConfig(resolve(ROOT, "tsconfig.json"));
  const { output } = await cruise(["src", "packages"], { ...options, baseDir }, {}, { tsConfig });
  if (typeof output === "string") throw new Error("dependency-cruiser returned a report, not a result");
  return output;
}

function describeViolation(v: IViolation): string {
  const path = v.cycle?.map((step) => step.name).join(" -> ") ?? `${v.from} -> ${v.to}`;
  return `${v.rule.name}: ${path}`;
}

describe("architecture rules (dependency-cruiser over src/ and packages/)", () => {
  test("src/ and packages/ break no rule of .dependency-cruiser.cjs", async () => {
    const result = await cruiseSrc(ROOT, await rules());
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
    // The cruise sees the tree: a run that found no module would pass every rule.
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    expect(result.modules.some((m) => m.source.startsWith("src/application/") && m.dependencies.some((d) => d.resolved.startsWith("src/domain/")))).toBe(true);
  }, 30_000);

  test("every rule fails on a fixture that breaks it (the rules can fail)", async () => {
    const options = await rules();
    // The real run excludes the fixture folder; here it is the whole tree.
    const result = await cruiseSrc(FIXTURE, { ...options, exclude: { path: "^$" } });
    const broken = new Set(result.summary.violations.map((v) => v.rule.name));
    const all = (options.ruleSet?.forbidden ?? []).map((rule) => rule.name ?? "(unnamed)");
    expect(all.length).toBeGreaterThan(5);
    expect([...broken].sort()).toEqual([...all].sort());
  }, 30_000);
});
