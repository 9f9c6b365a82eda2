import type { RpcListener } from "../../src/index.ts";

/** The JSON-RPC server's listener for tests, which run under Bun. */
export const bunListener: RpcListener = Object.freeze({
  listen(options) {
    const server = Bun.serve({ hostname: options.hostname, port: options.port, maxRequestBodySize: options.maxRequestBodySize, fetch: options.fetch });
    return { url: `http://${options.hostname}:${server.port}`, port: server.port ?? options.port, stop: (force?: boolean) => server.stop(force) };
  },
});
