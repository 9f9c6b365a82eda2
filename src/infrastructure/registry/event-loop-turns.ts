import { setImmediate } from "node:timers";
import { createTurnQueue, type YieldToEventLoop } from "../../application/registry/sliced-runner.ts";

/**
 * The process's one queue of turns for background work (sliced-runner.ts createTurnQueue): the
 * index's kinds, the JSON-RPC reader's unpacking and the embedded ledger's listings take turns
 * from it, so a turn of the event loop runs one slice of theirs, not one of each.
 */
export const backgroundTurn: YieldToEventLoop = createTurnQueue(() => new Promise((resolve) => setImmediate(resolve)));
