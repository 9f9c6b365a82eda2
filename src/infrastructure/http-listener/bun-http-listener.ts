import type { HttpListener } from "./http-listener.ts";
import { internalError, originOf } from "./http-listener.ts";
import { LINGER, withRequestBodyLimit } from "./request-body-limit.ts";
import { withFixedOrigin } from "./request-target.ts";

/**
 * `Bun.serve`. The body limit is ours (request-body-limit.ts) so that a refused upload gets a
 * lingering close; Bun's own `maxRequestBodySize`, which closes at once, sits past it by
 * `LINGER.maxBytes` as the outer bound.
 */
export const bunHttpListener: HttpListener = Object.freeze({
  runtime: "bun",
  listen(options) {
    const fetch = withFixedOrigin(withRequestBodyLimit(options.fetch, options.maxRequestBodySize));
    const server = Bun.serve({
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
      fetch: (request, bun) => fetch(request, { remoteAddress: bun.requestIP(request)?.address ?? null }),
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
