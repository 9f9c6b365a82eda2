import { CodedError, isCoded } from "../../domain/coded-error.ts";

/**
 * A JSON-RPC error answered by the node (CodedError LEDGER_RPC_ERROR), kept with its own numeric
 * JSON-RPC code, message and data (kit's errors drop them). A subclass only to carry those as data.
 */
export class RpcServerError extends CodedError<"LEDGER_RPC_ERROR"> {
  // The name these always had; they never leave classify() in rpc-ledger.ts, but a log line stays alike.
  override readonly name = "Error";
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly data: unknown,
  ) {
    super("LEDGER_RPC_ERROR", message);
  }
}

/** The node answered with an HTTP status outside 2xx (CodedError LEDGER_HTTP_ERROR). */
export class RpcHttpError extends CodedError<"LEDGER_HTTP_ERROR"> {
  override readonly name = "Error";
  constructor(readonly statusCode: number) {
    super("LEDGER_HTTP_ERROR", `HTTP error ${statusCode}`);
  }
}

export function isRpcServerError(error: unknown): error is RpcServerError {
  return isCoded(error, "LEDGER_RPC_ERROR");
}

export function isRpcHttpError(error: unknown): error is RpcHttpError {
  return isCoded(error, "LEDGER_HTTP_ERROR");
}

/** One JSON-RPC request: the node's `result`, or a thrown RpcServerError, RpcHttpError, or fetch/abort error. */
export type JsonRpcFetch = (method: string, params: readonly unknown[], signal: AbortSignal) => Promise<unknown>;

export const JSON_RPC_HEADERS = Object.freeze({ accept: "application/json", "content-type": "application/json; charset=utf-8" });

/** MAX_SAFE_INTEGER has 16 digits: a body without a run of 16 digits holds no integer a double rounds. */
const MAYBE_UNSAFE_INTEGER = /\d{16}/;
const INTEGER_SOURCE = /^-?\d+$/;

/**
 * Integers a double cannot hold become bigints, from their source text (the JSON.parse
 * source-text reviver of Bun, V8 and Deno). Where a runtime gives no source text the rounded
 * number stays, and the u64 readers refuse it instead of using a wrong value.
 */
function keepUnsafeIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== "number" || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  return source !== undefined && INTEGER_SOURCE.test(source) ? BigInt(source) : value;
}

/** A JSON-RPC answer's text, integers past 2^53 kept exact (see keepUnsafeIntegers). */
export function parseAnswer(text: string): unknown {
  // The reviver costs a call per value, so only a body that may hold a large integer pays it.
  return MAYBE_UNSAFE_INTEGER.test(text) ? JSON.parse(text, keepUnsafeIntegers as (key: string, value: unknown) => unknown) : JSON.parse(text);
}

/**
 * A u64 from a JSON-RPC answer as a bigint; throws (the call is then `unavailable`) for anything
 * that is not an exact non-negative integer.
 */
export function u64Of(value: unknown, field: string): bigint {
  if (typeof value === "bigint" && value >= 0n) return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new Error(`the node's ${field} is not a u64: ${String(value)}`);
}

/**
 * A plain JSON-RPC 2.0 client over `fetch`, for the calls every settlement makes. kit's RPC
 * stack (request transformers, bigint-wrapping JSON parser, response traversal, coalescing)
 * cost about 200 µs of CPU per `sendTransaction` (docs/performance.md); this is one
 * `JSON.stringify`, one `fetch` and one `JSON.parse`. Numbers stay exact: any integer past 2^53
 * is parsed as a bigint. Web-standard APIs only, so it runs on Bun, Node and Deno.
 */
export function createJsonRpcFetch(url: string): JsonRpcFetch {
  let nextId = 0;
  return async (method, params, signal) => {
    nextId = (nextId + 1) % Number.MAX_SAFE_INTEGER;
    const body = JSON.stringify({ jsonrpc: "2.0", id: nextId, method, params });
    const response = await fetch(url, { method: "POST", headers: JSON_RPC_HEADERS, body, signal });
    if (!response.ok) throw new RpcHttpError(response.status);
    const answer = parseAnswer(await response.text());
    if (typeof answer !== "object" || answer === null) throw new Error("the node's answer is not a JSON-RPC response");
    return resultOf(answer);
  };
}

/** One JSON-RPC response object's `result`; its `error` thrown as an RpcServerError. */
export function resultOf(answer: object): unknown {
  const { error, result } = answer as { error?: unknown; result?: unknown };
  if (typeof error === "object" && error !== null) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    throw new RpcServerError(Number(code), typeof message === "string" ? message : "JSON-RPC error", data);
  }
  if (!("result" in answer)) throw new Error("the node's answer has neither a result nor an error");
  return result;
}
