import type { ValidationReply, ValidationRequest } from "./bazaar-validation-worker.ts";

/** A declaration's check: done (`problem` null when valid), or not done because the queue was full. */
export type BazaarVerdict = Readonly<{ kind: "checked"; problem: string | null }> | Readonly<{ kind: "busy" }>;

/** Checks one bazaar extension with @x402/extensions' validators, off the event loop. */
export type BazaarValidator = (extension: Record<string, unknown>) => Promise<BazaarVerdict>;

export type BazaarValidatorOptions = Readonly<{
  /** Validations sent to the Worker and not answered yet, at most; past it a declaration is `busy` (default 16). */
  maxPending?: number;
  /** A validation still running after this is abandoned: the Worker is replaced and the declaration is invalid (default 5 s). */
  timeoutMs?: number;
  /** The Worker is stopped after this long without work, and started again by the next (default 60 s). */
  idleMs?: number;
}>;

/** Verdicts kept, by the declaration's JSON: a seller sends the same one with every payment. */
const MAX_CACHED_VERDICTS = 1_000;

/**
 * The package's validators in a Worker. They build a new Ajv and compile the schema on every call
 * (bench:discovery measured ~25-65 ms of CPU per new declaration, each holding the event loop, and
 * more for the first), and the package gives no way to reuse a compiled validator, so the call
 * moves off the event loop instead: this side only serialises the extension and reads the verdict.
 * Verdicts are cached by the declaration's JSON (a repeat costs no message); the queue is bounded
 * (a full one answers `busy`, which the recorder counts as dropped); a validation that does not end
 * (a schema built to be slow) costs one Worker, replaced, never the payment or the event loop.
 */
export function createBazaarValidator(options: BazaarValidatorOptions = {}): BazaarValidator {
  const maxPending = options.maxPending ?? 16;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const idleMs = options.idleMs ?? 60_000;
  const verdicts = new Map<string, string | null>();
  type Waiting = { json: string; settle(verdict: BazaarVerdict): void; fail(error: Error): void; timer: ReturnType<typeof setTimeout> };
  const pending = new Map<number, Waiting>();
  let worker: Worker | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;
  let nextId = 0;

  function remember(json: string, problem: string | null): void {
    if (verdicts.size >= MAX_CACHED_VERDICTS) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(json, problem);
  }

  function stop(): void {
    worker?.terminate();
    worker = null;
  }

  function started(): Worker {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (worker) return worker;
    const created = new Worker(new URL("./bazaar-validation-worker.ts", import.meta.url).href, { type: "module" });
    // Bun and Node let a worker not hold the process open; elsewhere it stops when idle.
    if ("unref" in created && typeof created.unref === "function") created.unref();
    created.onmessage = (event: MessageEvent<ValidationReply>) => {
      const waiting = pending.get(event.data.id);
      if (!waiting) return;
      pending.delete(event.data.id);
      clearTimeout(waiting.timer);
      remember(waiting.json, event.data.problem);
      waiting.settle({ kind: "checked", problem: event.data.problem });
      if (pending.size === 0) stopWhenIdle();
    };
    created.onerror = (event) => {
      event.preventDefault?.();
      if (worker === created) stop();
      const failed = [...pending.values()];
      pending.clear();
      for (const waiting of failed) {
        clearTimeout(waiting.timer);
        waiting.fail(new Error(`the bazaar validation worker failed: ${event.message}`));
      }
    };
    worker = created;
    return created;
  }

  function stopWhenIdle(): void {
    idleTimer = setTimeout(stop, idleMs);
    (idleTimer as { unref?: () => void }).unref?.();
  }

  function abandon(id: number): void {
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    // Cached as invalid, so the same declaration is not tried (and a Worker lost) again.
    const problem = `bazaar: validation did not end within ${timeoutMs} ms`;
    remember(waiting.json, problem);
    waiting.settle({ kind: "checked", problem });
    // The Worker may be stuck in it: replaced, and what else it held is given up (not checked, not recorded).
    stop();
    const others = [...pending.values()];
    pending.clear();
    for (const other of others) {
      clearTimeout(other.timer);
      other.settle({ kind: "busy" });
    }
  }

  return (extension) => {
    const json = JSON.stringify(extension);
    const known = verdicts.get(json);
    if (known !== undefined) return Promise.resolve({ kind: "checked", problem: known });
    if (pending.size >= maxPending) return Promise.resolve({ kind: "busy" });
    const id = ++nextId;
    return new Promise<BazaarVerdict>((resolve, reject) => {
      const timer = setTimeout(() => abandon(id), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      pending.set(id, { json, settle: resolve, fail: reject, timer });
      try {
        started().postMessage({ id, extension } satisfies ValidationRequest);
      } catch (error) {
        pending.delete(id);
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  };
}
