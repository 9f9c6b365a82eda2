import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * PGlite's WebAssembly (9 MB), compiled once per process and handed to every PGlite this process
 * opens on a directory (pglite-executor.ts). main.ts starts it before the service's modules load,
 * so the compile overlaps the module loading instead of following it.
 *
 * It compiles on the calling thread: under Bun 1.4 `WebAssembly.compile` costs that thread
 * ~20-30 ms (reading the file and starting the compile; JavaScriptCore validates and compiles on
 * its own threads), V8 (Deno) likewise. A Worker that compiled it and posted the module back
 * (until 2026-11-27) cost the process a second JavaScript runtime's start, and its answer came
 * after the modules had loaded (docs/performance.md, Start-up).
 */
let compiling: Promise<WebAssembly.Module> | null = null;

/** Starts the compile (idempotent); the promise rejects only if the file cannot be compiled at all. */
export function compilePgliteWasm(): Promise<WebAssembly.Module> {
  compiling ??= compileHere().catch((error: unknown) => {
    compiling = null; // the next caller tries again; this one lets PGlite compile it itself
    throw error;
  });
  return compiling;
}

function compileHere(): Promise<WebAssembly.Module> {
  try {
    return WebAssembly.compile(readFileSync(pgliteWasmPath()));
  } catch (error) {
    return Promise.reject(error);
  }
}

export function pgliteWasmPath(): string {
  return fileURLToPath(import.meta.resolve("@electric-sql/pglite/pglite.wasm"));
}
