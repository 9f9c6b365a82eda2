import type { FetchHandler } from "./http-listener.ts";

/**
 * The body-size backstop for runtimes whose server has no `maxRequestBodySize` (Deno.serve).
 * SECURITY: without it a handler that buffers the body (`request.text()`) can be made to hold
 * any amount of memory. A declared length past the limit is refused before the handler runs;
 * a chunked body is counted while the handler reads it, the stream fails past the limit, and
 * the answer is 413 whatever the handler made of that failure. A declared length that is
 * within the limit needs nothing more: the runtime ends the body at the declared length.
 */
export function withRequestBodyLimit(fetch: FetchHandler, maxBytes: number): FetchHandler {
  return async (request, connection) => {
    const declared = request.headers.get("content-length");
    if (declared !== null) return Number(declared) > maxBytes ? payloadTooLarge() : fetch(request, connection);
    if (request.body === null) return fetch(request, connection);
    let received = 0;
    let exceeded = false;
    const counted = request.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          if (received > maxBytes) {
            exceeded = true;
            controller.error(new RangeError(`request body exceeds ${maxBytes} bytes`));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    // Built from its parts, not `new Request(request, ...)`: that would follow request.signal,
    // which Deno reports (and, in its legacy mode, aborts once the response is sent).
    const limited = new Request(request.url, { method: request.method, headers: request.headers, body: counted, duplex: "half" } as RequestInit);
    try {
      const response = await fetch(limited, connection);
      return exceeded ? payloadTooLarge() : response;
    } catch (error) {
      if (exceeded) return payloadTooLarge();
      throw error;
    }
  };
}

/** What Bun answers past its own limit: 413, no body. */
function payloadTooLarge(): Response {
  return new Response(null, { status: 413 });
}
