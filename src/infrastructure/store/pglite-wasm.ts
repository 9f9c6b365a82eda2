import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * PGlite's WebAssembly (9 MB), compiled once per process and handed to every PGlite this process
 * opens on a directory (pglite-executor.ts).
 *
 * Under Bun the compile runs in a Worker. JavaScriptCore parses and validates a module on the
 * thread that calls `WebAssembly.compile` (150-450 ms of the main thread for this one) before its
 * tiers compile in the background; in a Worker started before the service's modules are loaded
 * (main.ts), that overlaps with the module loading instead of following it. A compiled module
 * crosses to the main thread by postMessage without being compiled again. Elsewhere (Deno: V8
 * compiles off the calling thread already) and whenever the Worker fails, it compiles here.
 */
let compiling: Promise<WebAssembly.Module> | null = null;

/** Without an answer by then the Worker is abandoned and the module compiled on this thread. */
const WORKER_DEADLINE_MS = 15_000;

/** Starts the compile (idempotent); the promise rejects only if the file cannot be compiled at all. */
export function compilePgliteWasm(): Promise<WebAssembly.Module> {
  const onJavaScriptCore = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
  compiling ??= (onJavaScriptCore ? compileInWorker().catch(compileHere) : compileHere()).catch((error: unknown) => {
    compiling = null; // the next caller tries again; this one lets PGlite compile it itself
    throw error;
  });
  return compiling;
}

function compileHere(): Promise<WebAssembly.Module> {
  return WebAssembly.compile(readFileSync(pgliteWasmPath()));
}

export function pgliteWasmPath(): string {
  return fileURLToPath(import.meta.resolve("@electric-sql/pglite/pglite.wasm"));
}

function compileInWorker(): Promise<WebAssembly.Module> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./pglite-wasm-worker.ts", import.meta.url).href, { type: "module" });
    // The compile must not keep a process alive that has nothing else left to do.
    if ("unref" in worker && typeof worker.unref === "function") worker.unref();
    const finish = (settle: () => void): void => {
      clearTimeout(deadline);
      worker.terminate();
      settle();
    };
    const deadline = setTimeout(() => finish(() => reject(new Error("the PGlite compile worker did not answer"))), WORKER_DEADLINE_MS);
    (deadline as { unref?: () => void }).unref?.();
    worker.onmessage = (event: MessageEvent<unknown>) => {
      const data = event.data;
      finish(() => (data instanceof WebAssembly.Module ? resolve(data) : reject(new Error(`the PGlite compile worker failed: ${String((data as { error?: unknown })?.error)}`))));
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      finish(() => reject(new Error(`the PGlite compile worker failed: ${event.message}`)));
    };
  });
}
