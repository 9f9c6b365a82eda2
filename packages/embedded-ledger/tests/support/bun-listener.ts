import type { PubsubSession, RpcListener } from "../../src/index.ts";

/** The JSON-RPC server's listener for tests, which run under Bun: HTTP, and WebSocket upgrades on the same port. */
export const bunListener: RpcListener = Object.freeze({
  listen(options) {
    const ws = options.websocket;
    const server = Bun.serve<{ session: PubsubSession | null }>({
      hostname: options.hostname,
      port: options.port,
      maxRequestBodySize: options.maxRequestBodySize,
      fetch: (request, bun) => {
        if (ws && request.headers.get("upgrade")?.toLowerCase() === "websocket") {
          return bun.upgrade(request, { data: { session: null } }) ? undefined : new Response("upgrade failed", { status: 400 });
        }
        return options.fetch(request);
      },
      websocket: {
        maxPayloadLength: ws?.maxMessageBytes ?? 0,
        open(socket) {
          socket.data.session = ws ? ws.open({ send: (text) => void socket.send(text), close: (code, reason) => socket.close(code, reason) }) : null;
        },
        message(socket, message) {
          socket.data.session?.message(String(message));
        },
        close(socket) {
          socket.data.session?.closed();
        },
      },
    });
    return { url: `http://${options.hostname}:${server.port}`, port: server.port ?? options.port, stop: (force?: boolean) => server.stop(force) };
  },
});
