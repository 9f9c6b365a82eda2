/**
 * Serving a fetch handler on a TCP address. Bun and Deno each have their own server API
 * (`Bun.serve`, `Deno.serve`); everything that listens goes through this type, so the same
 * composition root runs on either. It carries no application meaning (no use case listens),
 * which is why it lives with the adapters rather than in `application/ports`.
 */

/** The peer of one request, as the runtime reports it; null when it cannot say. */
export type ConnectionInfo = Readonly<{ remoteAddress: string | null }>;

export type FetchHandler = (request: Request, connection: ConnectionInfo) => Response | Promise<Response>;

export type ListenOptions = Readonly<{
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  fetch: FetchHandler;
  /**
   * Bodies past this are answered 413 by the listener itself, whatever the handler does, with a
   * lingering close (request-body-limit.ts).
   */
  maxRequestBodySize: number;
  /**
   * Told about anything `fetch` throws; the client gets a bare 500 in the error shape (never a
   * runtime's error page). The apps' error layer answers what routes throw, so this sees only
   * what escapes it.
   */
  onError?: (error: unknown) => void;
  /** When given, a GET with `Upgrade: websocket` becomes a WebSocket connection handed to it. */
  websocket?: WebSocketHandler;
}>;

/** One WebSocket connection, as the handler sees it. */
export type WebSocketPeer = Readonly<{ send(text: string): void; close(code?: number, reason?: string): void }>;

/** The handler's side of one connection: its text messages, then its end. */
export type WebSocketSession = Readonly<{ message(text: string): void; closed(): void }>;

export type WebSocketHandler = Readonly<{
  open(peer: WebSocketPeer): WebSocketSession;
  /** A larger message closes the connection (1009). */
  maxMessageBytes: number;
}>;

/** Buffered output past which a connection is closed: a client that stops reading must not hold our memory. */
export const WEBSOCKET_BACKPRESSURE_LIMIT_BYTES = 64 * 1024 * 1024;

export function isWebSocketUpgrade(request: Request): boolean {
  return request.method === "GET" && request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

export type ListeningServer = Readonly<{
  /** e.g. `http://127.0.0.1:4020` (IPv6 hosts in brackets); the real port when 0 was asked for. */
  url: string;
  port: number;
  /**
   * Stops accepting connections. Without `force`, resolves once in-flight requests have been
   * answered; with it, open connections are closed at once.
   */
  stop(force?: boolean): Promise<void>;
  /** Requests received and not yet answered. */
  pendingRequests(): number;
}>;

export type HttpListener = Readonly<{
  runtime: "bun" | "deno";
  /**
   * Binds and serves, or throws synchronously. The thrown error carries the runtime's `code`
   * (`EADDRINUSE`, `EADDRNOTAVAIL`, `EACCES`) when it has one, and names the address: callers
   * that log it must not log it whole.
   */
  listen(options: ListenOptions): ListeningServer;
}>;

/** The answer to a request whose handler threw: no detail, the interfaces' error shape. */
export function internalError(): Response {
  return Response.json({ statusCode: 500, message: "internal error", error: "Internal Server Error" }, { status: 500 });
}

/** The origin a client uses to reach `hostname:port`. */
export function originOf(hostname: string, port: number): string {
  return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}
