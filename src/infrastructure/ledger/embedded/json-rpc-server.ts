import type { Logger } from "../../../application/ports/logger.ts";
import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { createLedgerRpcHandler, MAX_RPC_BODY_BYTES } from "./json-rpc-handler.ts";

export type LedgerRpcServer = Readonly<{
  /** e.g. `http://127.0.0.1:8899`; the real port when 0 was asked for. */
  url: string;
  stop(): Promise<void>;
}>;

export type ServeLedgerRpcOptions = Readonly<{ host?: string; port?: number; logger?: Logger }>;

/** Serves the embedded ledger's Solana JSON-RPC with Bun.serve. Port 0 picks a free port. */
export function serveLedgerRpc(ledger: EmbeddedLedger, options: ServeLedgerRpcOptions = {}): LedgerRpcServer {
  const host = options.host ?? "127.0.0.1";
  const handler = createLedgerRpcHandler(ledger, options.logger ? { logger: options.logger } : {});
  const server = Bun.serve({
    hostname: host,
    port: options.port ?? 8899,
    maxRequestBodySize: MAX_RPC_BODY_BYTES,
    fetch: handler,
  });
  const shownHost = host.includes(":") ? `[${host}]` : host;
  options.logger?.info("embedded ledger json-rpc listening", { host, port: server.port });
  return Object.freeze({
    url: `http://${shownHost}:${server.port}`,
    async stop() {
      await server.stop(true);
    },
  });
}
