import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { createLedgerRpcHandler, MAX_RPC_BODY_BYTES } from "./json-rpc-handler.ts";
import { createLedgerPubsub, MAX_PUBSUB_MESSAGE_BYTES, type PubsubPeer, type PubsubSession } from "./json-rpc-pubsub.ts";
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
    /**
     * WebSocket connections (a GET with `Upgrade: websocket`) on the same address: the listener
     * upgrades them and hands each one over here, its text messages up to `maxMessageBytes`.
     */
    websocket?: WebSocketHandler;
  }>): Readonly<{ url: string; port: number; stop(force?: boolean): Promise<void> }>;
}>;

export type WebSocketHandler = Readonly<{
  open(peer: PubsubPeer): PubsubSession;
  /** Larger messages close the connection (the listener enforces it). */
  maxMessageBytes: number;
}>;

export type LedgerRpcServer = Readonly<{
  /** e.g. `http://127.0.0.1:8899`; the real port when 0 was asked for. */
  url: string;
  /** The pubsub (programSubscribe) on the same port: `ws://127.0.0.1:8899`. */
  wsUrl: string;
  /** Closes the listener and its open connections at once. */
  stop(): Promise<void>;
}>;

export type ServeLedgerRpcOptions = Readonly<{
  host?: string;
  port?: number;
  logger?: Logger;
  listener: RpcListener;
}>;

/**
 * Serves the embedded ledger's Solana JSON-RPC, and its WebSocket pubsub on the same port (a real
 * node's default is the next port; hosted nodes use one address for both, as here). Port 0 picks
 * a free port. Throws when it cannot listen.
 */
export function serveLedgerRpc(ledger: EmbeddedLedger, options: ServeLedgerRpcOptions): LedgerRpcServer {
  const host = options.host ?? "127.0.0.1";
  const handler = createLedgerRpcHandler(ledger, options.logger ? { logger: options.logger } : {});
  const pubsub = createLedgerPubsub(ledger, options.logger ? { logger: options.logger } : {});
  const server = options.listener.listen({
    hostname: host,
    port: options.port ?? 8899,
    maxRequestBodySize: MAX_RPC_BODY_BYTES,
    fetch: (request) => handler(request),
    websocket: { open: pubsub.open, maxMessageBytes: MAX_PUBSUB_MESSAGE_BYTES },
  });
  options.logger?.info("embedded ledger json-rpc listening", { host, port: server.port });
  return Object.freeze({
    url: server.url,
    wsUrl: server.url.replace(/^http/, "ws"),
    stop: () => server.stop(true),
  });
}
