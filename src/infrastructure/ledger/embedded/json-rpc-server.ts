import type { Logger } from "../../../application/ports/logger.ts";
import type { HttpListener } from "../../http-listener/http-listener.ts";
import { runtimeHttpListener } from "../../http-listener/runtime-http-listener.ts";
import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { createLedgerRpcHandler, MAX_RPC_BODY_BYTES } from "./json-rpc-handler.ts";

export type LedgerRpcServer = Readonly<{
  /** e.g. `http://127.0.0.1:8899`; the real port when 0 was asked for. */
  url: string;
  /** Closes the listener and its open connections at once. */
  stop(): Promise<void>;
}>;

export type ServeLedgerRpcOptions = Readonly<{
  host?: string;
  port?: number;
  logger?: Logger;
  /** How to listen; the current runtime's listener (Bun or Deno) when not given. */
  listener?: HttpListener;
}>;

/** Serves the embedded ledger's Solana JSON-RPC. Port 0 picks a free port. Throws when it cannot listen. */
export function serveLedgerRpc(ledger: EmbeddedLedger, options: ServeLedgerRpcOptions = {}): LedgerRpcServer {
  const host = options.host ?? "127.0.0.1";
  const handler = createLedgerRpcHandler(ledger, options.logger ? { logger: options.logger } : {});
  const server = (options.listener ?? runtimeHttpListener()).listen({
    hostname: host,
    port: options.port ?? 8899,
    maxRequestBodySize: MAX_RPC_BODY_BYTES,
    fetch: (request) => handler(request),
  });
  options.logger?.info("embedded ledger json-rpc listening", { host, port: server.port });
  return Object.freeze({
    url: server.url,
    stop: () => server.stop(true),
  });
}
