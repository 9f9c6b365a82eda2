import type { HttpListener, WebSocketSession } from "./http-listener.ts";
import { internalError, isWebSocketUpgrade, originOf, WEBSOCKET_BACKPRESSURE_LIMIT_BYTES } from "./http-listener.ts";
import { LINGER, withRequestBodyLimit } from "./request-body-limit.ts";
import { withFixedOrigin } from "./request-target.ts";

type SocketData = { session: WebSocketSession | null };

/**
 * `Bun.serve`. The body limit is ours (request-body-limit.ts) so that a refused upload gets a
 * lingering close; Bun's own `maxRequestBodySize`, which closes at once, sits past it by
 * `LINGER.maxBytes` as the outer bound.
 */
export const bunHttpListener: HttpListener = Object.freeze({
  runtime: "bun",
  listen(options) {
    const fetch = withFixedOrigin(withRequestBodyLimit(options.fetch, options.maxRequestBodySize));
    const ws = options.websocket;
    const server = Bun.serve<SocketData>({
      hostname: options.hostname,
      port: options.port,
      maxRequestBodySize: options.maxRequestBodySize + LINGER.maxBytes,
      // SECURITY: Bun's development error page shows the working directory and source lines of
      // whatever threw; it is never what a client should see, whatever NODE_ENV says. The apps'
      // error layer answers (and logs) everything a route throws; this is for what escapes it.
      development: false,
      // Bun turns SO_REUSEPORT on when development is false: a second process on a port in use
      // would then share it silently instead of failing with EADDRINUSE.
      reusePort: false,
      error: (error) => {
        options.onError?.(error);
        return internalError();
      },
      fetch: (request, bun) => {
        if (ws && isWebSocketUpgrade(request)) {
          if (bun.upgrade(request, { data: { session: null } })) return undefined;
          return new Response("WebSocket upgrade failed", { status: 400 });
        }
        return fetch(request, { remoteAddress: bun.requestIP(request)?.address ?? null });
      },
      websocket: {
        maxPayloadLength: ws?.maxMessageBytes ?? 0,
        backpressureLimit: WEBSOCKET_BACKPRESSURE_LIMIT_BYTES,
        closeOnBackpressureLimit: true,
        open(socket) {
          if (!ws) return socket.close(1011);
          socket.data.session = ws.open({ send: (text) => void socket.send(text), close: (code, reason) => socket.close(code, reason) });
        },
        message(socket, message) {
          socket.data.session?.message(typeof message === "string" ? message : new TextDecoder().decode(message));
        },
        close(socket) {
          socket.data.session?.closed();
          socket.data.session = null;
        },
      },
    });
    const port = server.port ?? options.port;
    return Object.freeze({
      url: originOf(options.hostname, port),
      port,
      stop: (force = false) => server.stop(force),
      pendingRequests: () => server.pendingRequests,
    });
  },
});
