import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../../src");
/** The workspace packages' sources, which run wherever the service does. */
const PACKAGE_SOURCES = ["embedded-ledger", "solana-wire"].map((name) => resolve(import.meta.dir, "../../../packages", name, "src"));
/** The only modules that may touch a runtime's own server API: one adapter per runtime. */
const LISTENER_ADAPTERS = new Set(["infrastructure/http-listener/bun-http-listener.ts", "infrastructure/http-listener/deno-http-listener.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function code(file: string): string {
  return readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
}

describe("runtime portability (static scan of src/): the service runs on Bun and on Deno", () => {
  test("Bun and Deno globals appear only in the HTTP listener adapters (src/ and the workspace packages)", () => {
    const offenders = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !LISTENER_ADAPTERS.has(file))
      .filter((file) => /\b(Bun|Deno)\.[a-zA-Z]/.test(code(join(SRC, file))));
    expect(offenders).toEqual([]);
    const packageOffenders = PACKAGE_SOURCES.flatMap(sourceFiles).filter((file) => /\b(Bun|Deno)\.[a-zA-Z]/.test(code(file)));
    expect(packageOffenders).toEqual([]);
    expect(PACKAGE_SOURCES.flatMap(sourceFiles).length).toBeGreaterThan(10);
    // The scan sees a use where there is one.
    expect(/\b(Bun|Deno)\.[a-zA-Z]/.test(code(join(SRC, "infrastructure/http-listener/bun-http-listener.ts")))).toBe(true);
  });

  // Imports are checked by dependency-cruiser (.dependency-cruiser.cjs, rules core-is-portable and
  // core-uses-no-runtime-package); globals are not imports, so these scans stay.
  test("domain, application and @x84/solana-wire use no runtime globals (Bun, Deno, process, Buffer)", () => {
    const offenders = [join(SRC, "domain"), join(SRC, "application"), PACKAGE_SOURCES[1] ?? ""]
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => /\b(Bun|Deno|process|Buffer)\.[a-zA-Z]/.test(code(file)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  test("only the composition root and command-line tools read the environment", () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !file.endsWith("/main.ts") && !relative(SRC, file).startsWith("tools/"))
      .filter((file) => /process\.env|Bun\.env|Deno\.env/.test(code(file)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
    // The scan sees a read where there is one.
    expect(/process\.env|Bun\.env|Deno\.env/.test(code(join(SRC, "main.ts")))).toBe(true);
  });

  test("nothing imports Bun's own modules (bun, bun:*)", () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => /(?:from\s+|import\(\s*)["']bun(?::[a-z]+)?["']/.test(code(file)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});
