import type { HttpListener, WebSocketSession } from "./http-listener.ts";
import { isWebSocketUpgrade, originOf, WEBSOCKET_BACKPRESSURE_LIMIT_BYTES } from "./http-listener.ts";

type SocketData = { session: WebSocketSession | null };

/** `Bun.serve`; Bun enforces `maxRequestBodySize` itself (413, chunked bodies included). */
export const bunHttpListener: HttpListener = Object.freeze({
  runtime: "bun",
  listen(options) {
    const ws = options.websocket;
    const server = Bun.serve<SocketData>({
      hostname: options.hostname,
      port: options.port,
      maxRequestBodySize: options.maxRequestBodySize,
      fetch: (request, bun) => {
        if (ws && isWebSocketUpgrade(request)) {
          if (bun.upgrade(request, { data: { session: null } })) return undefined;
          return new Response("WebSocket upgrade failed", { status: 400 });
        }
        return options.fetch(request, { remoteAddress: bun.requestIP(request)?.address ?? null });
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
