import type { HttpListener, WebSocketHandler } from "./http-listener.ts";
import { internalError, isWebSocketUpgrade, originOf, WEBSOCKET_BACKPRESSURE_LIMIT_BYTES } from "./http-listener.ts";
import { withRequestBodyLimit } from "./request-body-limit.ts";
import { withFixedOrigin } from "./request-target.ts";

/** The part of Deno's namespace this adapter uses (the project type-checks against Bun's types). */
type DenoServe = Readonly<{
  serve(
    options: Readonly<{ hostname: string; port: number; signal: AbortSignal; onListen(): void; onError(error: unknown): Response }>,
    handler: (request: Request, info: Readonly<{ remoteAddr: Readonly<{ hostname?: string }> }>) => Response | Promise<Response>,
  ): Readonly<{ addr: Readonly<{ port: number }>; finished: Promise<void>; shutdown(): Promise<void> }>;
  upgradeWebSocket(request: Request): Readonly<{ socket: WebSocket; response: Response }>;
}>;

/**
 * `Deno.serve`. The body limit and the fixed origin wrap the handler as in the Bun adapter (Deno
 * has no `maxRequestBodySize` of its own); it has no request counter, so the adapter keeps one.
 * A graceful stop is `shutdown()`; a forced one aborts the server's signal, which closes every
 * connection at once.
 */
export const denoHttpListener: HttpListener = Object.freeze({
  runtime: "deno",
  listen(options) {
    const fetch = withFixedOrigin(withRequestBodyLimit(options.fetch, options.maxRequestBodySize));
    const abort = new AbortController();
    let pending = 0;
    const server = denoNamespace().serve(
      // onListen replaces Deno's default "Listening on ..." line on stdout, which is not JSON.
      {
        hostname: options.hostname,
        port: options.port,
        signal: abort.signal,
        onListen: () => {},
        // Deno's default prints the error to stderr (not JSON) and answers a plain-text 500.
        onError: (error) => {
          options.onError?.(error);
          return internalError();
        },
      },
      async (request, info) => {
        if (options.websocket && isWebSocketUpgrade(request)) return upgraded(request, options.websocket);
        pending += 1;
        try {
          return await fetch(request, { remoteAddress: info.remoteAddr.hostname ?? null });
        } finally {
          pending -= 1;
        }
      },
    );
    let state: "serving" | "draining" | "stopped" = "serving";
    return Object.freeze({
      url: originOf(options.hostname, server.addr.port),
      port: server.addr.port,
      async stop(force = false) {
        if (state === "serving") {
          state = force ? "stopped" : "draining";
          if (force) abort.abort();
          else server.shutdown().catch(() => {});
        } else if (state === "draining" && force) {
          // Deno cannot cut connections once shutdown() has begun: aborting then throws
          // BadResource inside the runtime, uncatchable. The caller's exit closes them.
          return;
        }
        await server.finished;
      },
      pendingRequests: () => pending,
    });
  },
});

/**
 * Deno has no message-size or backpressure options: both are checked here, and the connection is
 * closed past them (1009 too big, 1008 a client that stops reading).
 */
function upgraded(request: Request, handler: WebSocketHandler): Response {
  const { socket, response } = denoNamespace().upgradeWebSocket(request);
  let session: ReturnType<WebSocketHandler["open"]> | null = null;
  socket.onopen = () => {
    session = handler.open({
      send(text) {
        if (socket.readyState !== WebSocket.OPEN) return;
        if (socket.bufferedAmount > WEBSOCKET_BACKPRESSURE_LIMIT_BYTES) return socket.close(1008, "backpressure");
        socket.send(text);
      },
      close: (code, reason) => socket.close(code, reason),
    });
  };
  socket.onmessage = (event: MessageEvent) => {
    const text = typeof event.data === "string" ? event.data : null;
    if (text === null || text.length > handler.maxMessageBytes) return socket.close(1009, "message too big");
    session?.message(text);
  };
  socket.onclose = () => {
    session?.closed();
    session = null;
  };
  return response;
}

function denoNamespace(): DenoServe {
  const deno = (globalThis as { Deno?: DenoServe }).Deno;
  if (!deno) throw new Error("Deno.serve is not available: this process is not running on Deno");
  return deno;
}
