import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/** Which layers each layer may not import. Arrows point inward: domain <- application <- adapters. */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  domain: ["application", "infrastructure", "http", "main.ts", "tools"],
  application: ["infrastructure", "http", "main.ts", "tools"],
};

/** Runtime-specific modules that would stop domain and application from running on Deno. */
const NON_WEB_MODULES = /^(node:|bun$|bun:|fs$|path$|crypto$|os$|child_process$|pkcs11js$|postgres$|litesvm$|@aws-sdk\/|@electric-sql\/)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)];
  return specifiers.map((m) => m[1] ?? m[2] ?? "");
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
}

function layerOf(path: string): string {
  return relative(SRC, path).split("/")[0] ?? "";
}

describe("layer dependencies (static scan of src/)", () => {
  for (const layer of Object.keys(FORBIDDEN)) {
    test(`${layer} imports no outer layer and no runtime-specific module`, () => {
      const violations: string[] = [];
      for (const file of sourceFiles(join(SRC, layer))) {
        for (const spec of importsOf(file)) {
          if (spec.startsWith(".")) {
            const target = layerOf(resolve(file, "..", spec));
            if (FORBIDDEN[layer]?.includes(target)) violations.push(`${relative(SRC, file)} -> ${spec}`);
          } else if (NON_WEB_MODULES.test(spec)) {
            violations.push(`${relative(SRC, file)} -> ${spec}`);
          }
        }
      }
      expect(violations).toEqual([]);
    });
  }

  test("domain and application use no runtime globals (Bun, Deno, process, Buffer)", () => {
    const offenders = ["domain", "application"]
      .flatMap((layer) => sourceFiles(join(SRC, layer)))
      .filter((file) => /\b(Bun|Deno|process|Buffer)\.[a-zA-Z]/.test(stripComments(readFileSync(file, "utf8"))))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  test("only the composition root and command-line tools read the environment", () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !file.endsWith("/main.ts") && !relative(SRC, file).startsWith("tools/"))
      .filter((file) => /process\.env|Bun\.env|Deno\.env/.test(stripComments(readFileSync(file, "utf8"))))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  test("the scan sees imports (guards against a scan that finds nothing)", () => {
    const all = sourceFiles(join(SRC, "application")).flatMap(importsOf);
    expect(all.some((s) => s.includes("domain"))).toBe(true);
  });
});
