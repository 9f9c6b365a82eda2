import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { createLedgerRpcHandler, MAX_RPC_BODY_BYTES } from "./json-rpc-handler.ts";
import type { Logger } from "./ports.ts";

/**
 * How to serve a fetch handler on a TCP address. The runtime's server (Bun.serve, Deno.serve) is
 * the host's to choose, so the package runs wherever its host does.
 */
export type RpcListener = Readonly<{
  listen(options: Readonly<{
    hostname: string;
    /** 0 picks a free port. */
    port: number;
    /** Bodies past this must be answered 413 by the listener itself. */
    maxRequestBodySize: number;
    fetch: (request: Request) => Response | Promise<Response>;
  }>): Readonly<{ url: string; port: number; stop(force?: boolean): Promise<void> }>;
}>;

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
  listener: RpcListener;
}>;

/** Serves the embedded ledger's Solana JSON-RPC. Port 0 picks a free port. Throws when it cannot listen. */
export function serveLedgerRpc(ledger: EmbeddedLedger, options: ServeLedgerRpcOptions): LedgerRpcServer {
  const host = options.host ?? "127.0.0.1";
  const handler = createLedgerRpcHandler(ledger, options.logger ? { logger: options.logger } : {});
  const server = options.listener.listen({
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
