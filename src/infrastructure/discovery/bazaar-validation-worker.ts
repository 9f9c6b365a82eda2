/**
 * Runs in a Worker (bazaar-validator.ts): validates one bazaar extension per message with
 * @x402/extensions' own validators, so their per-call Ajv build and schema compile (tens of ms of
 * CPU per new declaration) never hold the service's event loop.
 */
import { shortProblem } from "./bazaar-declaration-screen.ts";
import { validateBazaarExtension } from "./bazaar-validation.ts";

export type ValidationRequest = Readonly<{ id: number; extension: Record<string, unknown> }>;
export type ValidationReply = Readonly<{ id: number; problem: string | null }>;
/** Posted once, when the Worker has loaded the validators and listens: the validator's timer starts then. */
export type WorkerReady = Readonly<{ ready: true }>;

const port = globalThis as unknown as Worker;

port.onmessage = (event: MessageEvent<ValidationRequest>) => {
  const { id, extension } = event.data;
  let problem: string | null;
  try {
    problem = validateBazaarExtension(extension);
  } catch (error) {
    problem = `bazaar: ${error instanceof Error ? error.message : String(error)}`;
  }
  port.postMessage({ id, problem: problem === null ? null : shortProblem(problem) } satisfies ValidationReply);
};

port.postMessage({ ready: true } satisfies WorkerReady);
