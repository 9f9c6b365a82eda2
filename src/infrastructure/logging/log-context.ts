import { AsyncLocalStorage } from "node:async_hooks";
import type { LogFields } from "../../application/ports/logger.ts";

/**
 * Fields every log line carries while one piece of work runs: the HTTP layer enters
 * `{ requestId }` when a request arrives, and every line logged while that request is served
 * (the settle use case's, the error layer's, the store's) carries it, with no logger passed
 * through the application layer.
 *
 * node:async_hooks is supported by Bun and Deno. The storage is a context key, not state: what
 * it holds belongs to each asynchronous execution, never to the process.
 */
const storage = new AsyncLocalStorage<LogFields>();
const NONE: LogFields = Object.freeze({});

/** Runs `work` with `fields` added to every log line it (and what it awaits) writes. */
export function runWithLogContext<T>(fields: LogFields, work: () => T): T {
  return storage.run({ ...currentLogContext(), ...fields }, work);
}

/**
 * Makes `fields` the context of the rest of the current execution (and what it starts), replacing
 * what was there: a request starts afresh. For hooks that cannot wrap the work they precede, such
 * as an HTTP framework's on-request hook. The caller of a framework's `handle()` shares that
 * execution, so it sees the fields afterwards too (tests do; servers call each request afresh).
 */
export function enterLogContext(fields: LogFields): void {
  storage.enterWith(Object.freeze({ ...fields }));
}

export function currentLogContext(): LogFields {
  return storage.getStore() ?? NONE;
}
