import { screenBazaarExtension } from "./bazaar-declaration-screen.ts";
import type { ValidationReply, ValidationRequest, WorkerReady } from "./bazaar-validation-worker.ts";

/** A declaration's check: done (`problem` null when valid), or not done because the queue was full or validation is off. */
export type BazaarVerdict = Readonly<{ kind: "checked"; problem: string | null }> | Readonly<{ kind: "busy" }>;

/** Checks one bazaar extension with @x402/extensions' validators, off the event loop. */
export type BazaarValidator = (extension: Record<string, unknown>) => Promise<BazaarVerdict>;

/**
 * What a validation that does not end in time costs. `replace`: the Worker is terminated and the
 * next declaration starts another (Bun: terminate stops a Worker busy in JavaScript). `stop`: no
 * more validation until the process restarts, every declaration `busy` (Deno 2.x: terminate does
 * not stop a Worker busy in JavaScript, so a replacement would add a second spinning thread).
 */
export type TimeoutPolicy = "replace" | "stop";

export type BazaarValidatorOptions = Readonly<{
  /** Validations sent to the Worker and not answered yet, at most; past it a declaration is `busy` (default 16). */
  maxPending?: number;
  /** A validation still running this long after the Worker began it is abandoned: the declaration is invalid for a while (default 1 s). */
  timeoutMs?: number;
  /** The Worker is stopped after this long without work, and started again by the next (default 60 s). */
  idleMs?: number;
  /** Default: `stop` on Deno, `replace` elsewhere. */
  onTimeout?: TimeoutPolicy;
  /** How long a timed-out declaration is answered invalid without a new try (default 60 s). */
  timeoutVerdictMs?: number;
  /** A Worker not ready this long after its creation is given up: what it held is `busy` (default 30 s). */
  startTimeoutMs?: number;
}>;

/** Verdicts kept, by the declaration's JSON: a seller sends the same one with every payment. */
const MAX_CACHED_VERDICTS = 1_000;

const runtimePolicy = (): TimeoutPolicy => (typeof (globalThis as { Deno?: unknown }).Deno !== "undefined" ? "stop" : "replace");

/**
 * The package's validators in a Worker. They build a new Ajv and compile the schema on every call
 * (bench:discovery measured ~25-65 ms of CPU per new declaration, each holding the event loop, and
 * more for the first), and the package gives no way to reuse a compiled validator, so the call
 * moves off the event loop instead: this side screens the extension (bazaar-declaration-screen.ts:
 * no schema references, bounded depth and size), serialises it and reads the verdict. Verdicts are
 * cached by the declaration's JSON (a repeat costs no message); the queue is bounded (a full one
 * answers `busy`, which the recorder counts as dropped). The Worker answers in order, so one timer
 * runs, for the oldest validation, from when the Worker is ready or the previous one was answered.
 */
export function createBazaarValidator(options: BazaarValidatorOptions = {}): BazaarValidator {
  const maxPending = options.maxPending ?? 16;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const idleMs = options.idleMs ?? 60_000;
  const policy = options.onTimeout ?? runtimePolicy();
  // A slow machine is not a verdict forever: a timed-out declaration is tried again after this.
  const timeoutVerdictMs = options.timeoutVerdictMs ?? 60_000;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const verdicts = new Map<string, Readonly<{ problem: string | null; until: number }>>();
  type Waiting = { json: string; settle(verdict: BazaarVerdict): void; fail(error: Error): void };
  const pending = new Map<number, Waiting>();
  let worker: Worker | null = null;
  let ready = false;
  let headTimer: ReturnType<typeof setTimeout> | null = null;
  let startTimer: ReturnType<typeof setTimeout> | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;
  let lost = false;
  let nextId = 0;

  function remember(json: string, problem: string | null, until = Number.POSITIVE_INFINITY): void {
    if (verdicts.size >= MAX_CACHED_VERDICTS) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(json, { problem, until });
  }

  function cached(json: string): string | null | undefined {
    const known = verdicts.get(json);
    if (known === undefined) return undefined;
    if (known.until > Date.now()) return known.problem;
    verdicts.delete(json);
    return undefined;
  }

  function clearHeadTimer(): void {
    if (headTimer) clearTimeout(headTimer);
    headTimer = null;
  }

  /** Starts the oldest validation's timer once the Worker can be running it. */
  function armHead(): void {
    if (!ready || headTimer || pending.size === 0) return;
    const head = pending.keys().next().value as number;
    headTimer = setTimeout(() => abandon(head), timeoutMs);
    (headTimer as { unref?: () => void }).unref?.();
  }

  function stop(): void {
    clearHeadTimer();
    if (startTimer) clearTimeout(startTimer);
    startTimer = null;
    worker?.terminate();
    worker = null;
    ready = false;
  }

  function started(): Worker {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (worker) return worker;
    const created = new Worker(new URL("./bazaar-validation-worker.ts", import.meta.url).href, { type: "module" });
    // Bun and Node let a worker not hold the process open; elsewhere it stops when idle.
    if ("unref" in created && typeof created.unref === "function") created.unref();
    created.onmessage = (event: MessageEvent<ValidationReply | WorkerReady>) => {
      if (worker !== created) return;
      if ("ready" in event.data) {
        ready = true;
        if (startTimer) clearTimeout(startTimer);
        startTimer = null;
        armHead();
        return;
      }
      const waiting = pending.get(event.data.id);
      if (!waiting) return;
      clearHeadTimer();
      pending.delete(event.data.id);
      remember(waiting.json, event.data.problem);
      waiting.settle({ kind: "checked", problem: event.data.problem });
      armHead();
      if (pending.size === 0) stopWhenIdle();
    };
    created.onerror = (event) => {
      event.preventDefault?.();
      // A Worker already replaced (after a timeout) holds none of the current Worker's validations.
      if (worker !== created) return;
      stop();
      const failed = [...pending.values()];
      pending.clear();
      for (const waiting of failed) waiting.fail(new Error(`the bazaar validation worker failed: ${event.message}`));
    };
    // The per-validation timer starts only once the Worker is ready, so a Worker that never gets
    // there (a failing module load that raises no error) must not hold its validations forever.
    startTimer = setTimeout(() => {
      startTimer = null;
      if (worker !== created || ready) return;
      stop();
      giveUpPending();
    }, startTimeoutMs);
    (startTimer as { unref?: () => void }).unref?.();
    worker = created;
    return created;
  }

  function stopWhenIdle(): void {
    idleTimer = setTimeout(stop, idleMs);
    (idleTimer as { unref?: () => void }).unref?.();
  }

  function abandon(id: number): void {
    headTimer = null;
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    const problem = `bazaar: validation did not end within ${timeoutMs} ms`;
    remember(waiting.json, problem, Date.now() + timeoutVerdictMs);
    waiting.settle({ kind: "checked", problem });
    // SECURITY: the Worker may be stuck in it. Where terminate cannot stop it (Deno), validation
    // ends until a restart rather than starting a Worker per hostile declaration.
    if (policy === "stop") lost = true;
    stop();
    giveUpPending();
  }

  /** What the stopped Worker held is given up: not checked, not recorded (counted dropped). */
  function giveUpPending(): void {
    const others = [...pending.values()];
    pending.clear();
    for (const other of others) other.settle({ kind: "busy" });
  }

  return (extension) => {
    const screening = screenBazaarExtension(extension);
    if (screening.kind === "refused") return Promise.resolve({ kind: "checked", problem: screening.problem });
    const { json } = screening;
    const known = cached(json);
    if (known !== undefined) return Promise.resolve({ kind: "checked", problem: known });
    if (lost || pending.size >= maxPending) return Promise.resolve({ kind: "busy" });
    const id = ++nextId;
    return new Promise<BazaarVerdict>((resolve, reject) => {
      pending.set(id, { json, settle: resolve, fail: reject });
      try {
        started().postMessage({ id, extension } satisfies ValidationRequest);
        armHead();
      } catch (error) {
        pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  };
}
