import type { HttpListener } from "./http-listener.ts";
import { originOf } from "./http-listener.ts";

/** `Bun.serve`; Bun enforces `maxRequestBodySize` itself (413, chunked bodies included). */
export const bunHttpListener: HttpListener = Object.freeze({
  runtime: "bun",
  listen(options) {
    const server = Bun.serve({
      hostname: options.hostname,
      port: options.port,
      maxRequestBodySize: options.maxRequestBodySize,
      fetch: (request, bun) => options.fetch(request, { remoteAddress: bun.requestIP(request)?.address ?? null }),
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
