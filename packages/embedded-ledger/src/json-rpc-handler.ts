import { silentLogger, type Logger } from "./ports.ts";
import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { accountMethods, type RpcMethodTable } from "./json-rpc-account-methods.ts";
import { clusterMethods } from "./json-rpc-cluster-methods.ts";
import { isRpcError, RPC_ERRORS, RpcError, toJson } from "./json-rpc-protocol.ts";
import { transactionMethods } from "./json-rpc-transaction-methods.ts";

/** Largest request body accepted; a batch of 100 maximal sendTransaction calls fits. */
export const MAX_RPC_BODY_BYTES = 1024 * 1024;
export const MAX_BATCH_SIZE = 100;

export type LedgerRpcHandler = (request: Request) => Promise<Response>;

type Id = string | number | null;
type RpcResponse = Readonly<{ jsonrpc: "2.0"; id: Id; result?: unknown; error?: unknown }>;

const CORS_HEADERS = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, GET, OPTIONS",
  "access-control-allow-headers": "content-type, solana-client",
});

function errorResponse(id: Id, error: RpcError): RpcResponse {
  const body = error.data === undefined ? { code: error.rpcCode, message: error.message } : { code: error.rpcCode, message: error.message, data: error.data };
  return { jsonrpc: "2.0", id, error: body };
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(toJson(body), { status, headers: { "content-type": "application/json", ...CORS_HEADERS } });
}

function isId(value: unknown): value is Id {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * A Solana JSON-RPC 2.0 endpoint over the embedded ledger, as a fetch-style handler so it
 * can be served by Bun.serve, Deno.serve or called directly in tests. Every failure is a
 * JSON-RPC error object; nothing a client sends produces an HTTP 500 or reaches litesvm
 * unchecked.
 */
export function createLedgerRpcHandler(ledger: EmbeddedLedger, options: Readonly<{ logger?: Logger }> = {}): LedgerRpcHandler {
  const logger = options.logger ?? silentLogger;
  const methods: RpcMethodTable = Object.freeze({
    ...accountMethods(ledger),
    ...transactionMethods(ledger),
    ...clusterMethods(ledger),
  });

  /** One call; returns null for a notification (no id), which gets no response. */
  async function call(raw: unknown): Promise<RpcResponse | null> {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      return errorResponse(null, new RpcError(RPC_ERRORS.invalidRequest, "Invalid request"));
    }
    const request = raw as Record<string, unknown>;
    const hasId = "id" in request;
    const id = hasId && isId(request["id"]) ? request["id"] : null;
    if (request["jsonrpc"] !== "2.0" || typeof request["method"] !== "string" || (hasId && !isId(request["id"]))) {
      return errorResponse(id, new RpcError(RPC_ERRORS.invalidRequest, "Invalid request"));
    }
    const name = request["method"];
    const params = request["params"] ?? [];
    const method = Object.hasOwn(methods, name) ? methods[name] : undefined;
    let response: RpcResponse;
    if (method === undefined) {
      response = errorResponse(id, new RpcError(RPC_ERRORS.methodNotFound, "Method not found"));
    } else if (!Array.isArray(params)) {
      response = errorResponse(id, new RpcError(RPC_ERRORS.invalidParams, "Invalid params: expected an array"));
    } else {
      try {
        response = { jsonrpc: "2.0", id, result: await method(params) };
      } catch (error) {
        if (isRpcError(error)) {
          response = errorResponse(id, error);
        } else {
          logger.error("ledger rpc method failed", { method: name, error: error instanceof Error ? error.message : String(error) });
          response = errorResponse(id, new RpcError(RPC_ERRORS.internal, "Internal error"));
        }
      }
    }
    return hasId ? response : null;
  }

  async function handlePost(request: Request): Promise<Response> {
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > MAX_RPC_BODY_BYTES) return jsonResponse(errorResponse(null, new RpcError(RPC_ERRORS.invalidRequest, "Request too large")), 413);
    const text = await request.text();
    if (text.length > MAX_RPC_BODY_BYTES) return jsonResponse(errorResponse(null, new RpcError(RPC_ERRORS.invalidRequest, "Request too large")), 413);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonResponse(errorResponse(null, new RpcError(RPC_ERRORS.parse, "Parse error")));
    }
    if (!Array.isArray(body)) {
      const single = await call(body);
      return single ? jsonResponse(single) : new Response(null, { status: 204, headers: CORS_HEADERS });
    }
    if (body.length === 0 || body.length > MAX_BATCH_SIZE) {
      return jsonResponse(errorResponse(null, new RpcError(RPC_ERRORS.invalidRequest, "Invalid request")));
    }
    // Sequential on purpose: ledger calls are ordered as the client listed them.
    const responses: RpcResponse[] = [];
    for (const item of body) {
      const response = await call(item);
      if (response) responses.push(response);
    }
    return responses.length > 0 ? jsonResponse(responses) : new Response(null, { status: 204, headers: CORS_HEADERS });
  }

  return async function handle(request: Request): Promise<Response> {
    try {
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
      // Real validators answer GET /health for load balancers.
      if (request.method === "GET" && new URL(request.url).pathname === "/health") return new Response("ok", { headers: CORS_HEADERS });
      if (request.method !== "POST") return new Response("Method Not Allowed", { status: 405, headers: { allow: "POST", ...CORS_HEADERS } });
      return await handlePost(request);
    } catch (error) {
      logger.error("ledger rpc request failed", { error: error instanceof Error ? error.message : String(error) });
      return jsonResponse(errorResponse(null, new RpcError(RPC_ERRORS.internal, "Internal error")));
    }
  };
}
