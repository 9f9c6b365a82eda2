import { JSON_RPC_HEADERS, type JsonRpcFetch, parseAnswer, RpcHttpError, resultOf } from "./json-rpc-fetch.ts";

export type JsonRpcBatchOptions = Readonly<{
  /** The deadline of one batch's HTTP request (each call also keeps its own signal). */
  timeoutMs: number;
  /** Most calls in one batch (Agave serves batches of any size; hosted nodes cap them, often at 100 or less). */
  maxCalls?: number;
  /** Largest batch body: Agave refuses bodies past 50 KiB (MAX_REQUEST_BODY_SIZE). */
  maxBodyBytes?: number;
}>;

const DEFAULT_MAX_CALLS = 16;
const DEFAULT_MAX_BODY_BYTES = 32 * 1024;

type Pending = {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly signal: AbortSignal;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  settled: boolean;
};

/**
 * Coalesces the calls made in one turn of the event loop into one JSON-RPC 2.0 batch: one HTTP
 * request, one body to parse, on both ends. Under load, the settlements of one claim batch are
 * signed and sent in the same turn; each send paid a `fetch` of its own on our side and an HTTP
 * request on the node's. A call made alone is sent alone, as before, so an idle service waits no
 * longer than one turn.
 *
 * SECURITY: only for calls that may safely reach the node twice: a batch a node refuses as a batch
 * is resent call by call, and a batch whose answer is lost fails every call in it as unavailable,
 * which the caller may retry. Reads change nothing; `sendTransaction` of the same signed bytes is
 * deduplicated by signature (one transaction lands at most once, and a resend of a landed one is
 * answered `AlreadyProcessed`, which submitTransaction takes as sent), exactly as its own retries
 * after a transport failure already are. A node that refuses batches (a non-array answer, or an
 * HTTP 4xx other than 429) gets single calls from then on.
 *
 * Each answer is matched to its call by id, never by position; an answer missing from the batch
 * fails only its own call (the ledger is then unavailable for it, never a wrong value).
 */
export function createJsonRpcBatcher(url: string, single: JsonRpcFetch, options: JsonRpcBatchOptions): JsonRpcBatcher {
  const maxCalls = Math.max(1, options.maxCalls ?? DEFAULT_MAX_CALLS);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let queue: Pending[] = [];
  let batching = true;
  let flushDue = false;
  let atFlush: (() => void)[] = [];

  function scheduleFlush(): void {
    if (flushDue) return;
    flushDue = true;
    setImmediate(flush);
  }

  function sendAlone(call: Pending): void {
    single(call.method, call.params, call.signal).then((value) => settle(call, null, value), (error: unknown) => settle(call, error));
  }

  function settle(call: Pending, error: unknown, value?: unknown): void {
    if (call.settled) return;
    call.settled = true;
    if (error === null) call.resolve(value);
    else call.reject(error);
  }

  async function sendBatch(calls: readonly Pending[], bodies: readonly string[]): Promise<void> {
    let answer: unknown;
    try {
      const response = await fetch(url, { method: "POST", headers: JSON_RPC_HEADERS, body: `[${bodies.join(",")}]`, signal: AbortSignal.timeout(options.timeoutMs) });
      if (!response.ok) {
        if (response.status >= 400 && response.status < 500 && response.status !== 429) return refusedBatch(calls);
        throw new RpcHttpError(response.status);
      }
      answer = parseAnswer(await response.text());
    } catch (error) {
      for (const call of calls) settle(call, error);
      return;
    }
    if (!Array.isArray(answer)) return refusedBatch(calls);
    // SECURITY: one payment's answer must never answer another's call. Answers are matched
    // by the id we gave each call in this batch (its index), never by their order in the array,
    // which JSON-RPC leaves to the node; an answer the node left out fails its call (unavailable).
    const byId = new Map<unknown, unknown>();
    for (const entry of answer) if (typeof entry === "object" && entry !== null) byId.set((entry as { id?: unknown }).id, entry);
    calls.forEach((call, id) => {
      const entry = byId.get(id);
      if (entry === undefined) return settle(call, new Error("the node's batch answer has no entry for this call"));
      let result: unknown;
      try {
        result = resultOf(entry as object);
      } catch (error) {
        return settle(call, error);
      }
      settle(call, null, result);
    });
  }

  /** The node does not take batches: these calls go one by one, and every later one too. */
  function refusedBatch(calls: readonly Pending[]): void {
    batching = false;
    for (const call of calls) if (!call.settled) sendAlone(call);
  }

  function flush(): void {
    flushDue = false;
    // Hooks run first, so the calls they make join the end of this turn's batch.
    const hooks = atFlush;
    atFlush = [];
    for (const hook of hooks) hook();
    const calls = queue.filter((call) => !call.settled);
    queue = [];
    let part: Pending[] = [];
    let bodies: string[] = [];
    let bytes = 2;
    const send = () => {
      if (part.length === 1) sendAlone(part[0] as Pending);
      else if (part.length > 1) void sendBatch(part, bodies);
      part = [];
      bodies = [];
      bytes = 2;
    };
    for (const call of calls) {
      // The id is the call's place in its batch: answers are matched by it, in any order.
      const rest = `"method":${JSON.stringify(call.method)},"params":${JSON.stringify(call.params)}}`;
      if (part.length > 0 && (part.length >= maxCalls || bytes + rest.length + 32 > maxBodyBytes)) send();
      const body = `{"jsonrpc":"2.0","id":${part.length},${rest}`;
      part.push(call);
      bodies.push(body);
      bytes += body.length + 1;
    }
    send();
  }

  const batched: JsonRpcFetch = (method, params, signal) =>
    new Promise<unknown>((resolve, reject) => {
      const call: Pending = { method, params, signal, resolve, reject, settled: false };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener("abort", () => settle(call, signal.reason), { once: true });
      if (!batching) return sendAlone(call);
      queue.push(call);
      scheduleFlush();
    });
  return Object.assign(batched, {
    atFlush(hook: () => void): void {
      atFlush.push(hook);
      scheduleFlush();
    },
  });
}

/**
 * A batching JsonRpcFetch. `atFlush(hook)` runs `hook` when this turn's batch is about to leave
 * (in the next turn when nothing is queued), so the calls the hook makes go after every call
 * queued in this turn, in the same batch.
 */
export type JsonRpcBatcher = JsonRpcFetch & Readonly<{ atFlush(hook: () => void): void }>;
