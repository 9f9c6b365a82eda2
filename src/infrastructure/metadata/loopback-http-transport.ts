import { request as httpRequest } from "node:http";
import { exchangeFor, type PinnedHttpsTransport } from "./pinned-https-transport.ts";

/**
 * Plain-http GET to 127.0.0.1, for the development metadata URIs METADATA_ALLOW_LOOPBACK admits
 * (`http://127.0.0.1:<port>/...`, `http://localhost:<port>/...`; metadata-target.ts decides). It
 * connects to the vetted address only, never resolving a name (so `localhost` is 127.0.0.1 whatever
 * the hosts file says), sends the URL's host as Host, and never follows redirects.
 *
 * @example
 * const exchange = await transport({ url: new URL("http://localhost:8080/agent.json"), addresses: [{ address: "127.0.0.1", family: 4 }], headers, signal });
 */
export function createLoopbackHttpTransport(): PinnedHttpsTransport {
  return (request) => {
    const { url } = request;
    const [target] = request.addresses;
    // SECURITY: only ever the loopback address the target rules produced; anything else is a bug upstream.
    if (url.protocol !== "http:" || target?.address !== "127.0.0.1") return Promise.reject(new Error("the loopback transport connects to 127.0.0.1 over http only"));
    return exchangeFor(request.signal, (onResponse) =>
      httpRequest(
        {
          method: "GET",
          host: target.address,
          port: url.port === "" ? 80 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { ...request.headers, host: url.host },
          agent: false,
        },
        onResponse,
      ),
    );
  };
}
