import type { LogFields } from "./logger.ts";

/**
 * Makes `fields` part of every log line written for the rest of the current execution (and what
 * it starts), replacing what was there. The HTTP layer enters `{ requestId }` when a request
 * arrives, so the use cases' lines carry it without a logger passed through them. A port because
 * how the context travels (AsyncLocalStorage, src/infrastructure/logging/log-context.ts) is the
 * logging adapter's business, handed in by the composition root.
 */
export type EnterLogContext = (fields: LogFields) => void;

/** Keeps no context: for an HTTP interface built with a logger that reads none (a test's). */
export const noLogContext: EnterLogContext = () => {};
