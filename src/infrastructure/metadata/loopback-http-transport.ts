import { request as httpRequest } from "node:http";
import { exchangeOf, type PinnedHttpsTransport } from "./pinned-https-transport.ts";

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
  return (request) =>
    new Promise((resolve, reject) => {
      const { url, signal } = request;
      if (signal.aborted) return reject(signal.reason);
      const [target] = request.addresses;
      // SECURITY: only ever the loopback address the target rules produced; anything else is a bug upstream.
      if (url.protocol !== "http:" || target?.address !== "127.0.0.1") return reject(new Error("the loopback transport connects to 127.0.0.1 over http only"));
      const outgoing = httpRequest(
        {
          method: "GET",
          host: target.address,
          port: url.port === "" ? 80 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { ...request.headers, host: url.host },
          agent: false,
        },
        (response) => {
          signal.removeEventListener("abort", abort);
          resolve(exchangeOf(response, () => outgoing.destroy(), signal));
        },
      );
      const abort = () => outgoing.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal.addEventListener("abort", abort, { once: true });
      outgoing.on("error", (error) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      });
      outgoing.end();
    });
}
