/**
 * PGlite's WebAssembly is compiled once per process, off the main thread under Bun
 * (src/infrastructure/store/pglite-wasm.ts), and every PGlite opened on a directory uses it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/infrastructure/store/index.ts";
import { compilePgliteWasm } from "../../src/infrastructure/store/pglite-wasm.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("PGlite's compiled WebAssembly", () => {
  test("is compiled once per process and comes back from the Worker as a usable module", async () => {
    const first = compilePgliteWasm();
    expect(compilePgliteWasm()).toBe(first);
    const module = await first;
    expect(module).toBeInstanceOf(WebAssembly.Module);
    // PGlite's own entry points are among its exports (a module that crossed the thread intact).
    const exports = WebAssembly.Module.exports(module).map((e) => e.name);
    expect(exports).toContain("pgl_setPGliteActive");
    expect(await compilePgliteWasm()).toBe(module);
  });

  test("a new DATA_DIR and then the same one again both open with it (the module is shared)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pglite-wasm-"));
    dirs.push(dataDir);
    for (let i = 0; i < 2; i++) {
      const store = await openStore({ dataDir });
      try {
        expect(await store.executor.query("SELECT 1 + $1::int AS two", [1])).toEqual([{ two: 2 }]);
      } finally {
        await store.close();
      }
    }
  });
});
