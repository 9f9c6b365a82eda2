/** Compiles PGlite's WebAssembly off the main thread and posts the module back (pglite-wasm.ts). */
import { readFileSync } from "node:fs";
import { pgliteWasmPath } from "./pglite-wasm.ts";

try {
  postMessage(await WebAssembly.compile(readFileSync(pgliteWasmPath())));
} catch (error) {
  postMessage({ error: error instanceof Error ? error.message : String(error) });
}
