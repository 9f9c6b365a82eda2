import type { FetchHandler } from "./http-listener.ts";

/**
 * How much of a refused body is still read, and for how long, after the 413 is sent (the
 * lingering close). Past either bound the connection is closed whatever the client is doing.
 */
export const LINGER = Object.freeze({ maxBytes: 8 * 1024 * 1024, maxMs: 2000 });

/**
 * The body-size limit of both listeners. SECURITY: without it a handler that buffers the body
 * (`request.text()`) can be made to hold any amount of memory. A declared length past the limit
 * is refused before the handler runs; a chunked body is counted while the handler reads it, the
 * stream fails past the limit, and the answer is 413 whatever the handler made of that failure.
 * A declared length within the limit needs nothing more: the runtime ends the body at it.
 *
 * The 413 is a lingering close: its status line and body are sent at once, then the rest of the
 * upload is read and discarded (at most `LINGER.maxBytes`, for at most `LINGER.maxMs`), and only
 * then does the response end and the connection close. Closing while the client is still
 * writing makes the kernel answer the next segment with a reset, and a reset discards the 413
 * the client had not read yet: a Node client sending 2 MB with Content-Length got EPIPE and no
 * status about half the time. Bun's own limit (`maxRequestBodySize`) closes at once, so the Bun
 * adapter sets it past this one by `LINGER.maxBytes`, as the outer bound.
 */
export function withRequestBodyLimit(fetch: FetchHandler, maxBytes: number): FetchHandler {
  return async (request, connection) => {
    const declared = request.headers.get("content-length");
    if (declared !== null) return Number(declared) > maxBytes ? payloadTooLarge(maxBytes, request.body) : fetch(request, connection);
    if (request.body === null) return fetch(request, connection);
    const source = request.body.getReader();
    let received = 0;
    let exceeded = false;
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await source.read();
          if (done) return controller.close();
          received += value.byteLength;
          if (received > maxBytes) {
            // The source is left open: the 413 drains it.
            exceeded = true;
            controller.error(new RangeError(`request body exceeds ${maxBytes} bytes`));
            return;
          }
          controller.enqueue(value);
        },
        cancel: (reason) => source.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    // Built from its parts, not `new Request(request, ...)`: that would follow request.signal,
    // which Deno reports (and, in its legacy mode, aborts once the response is sent).
    const limited = new Request(request.url, { method: request.method, headers: request.headers, body: counted, duplex: "half" } as RequestInit);
    try {
      const response = await fetch(limited, connection);
      return exceeded ? payloadTooLarge(maxBytes, source) : response;
    } catch (error) {
      if (exceeded) return payloadTooLarge(maxBytes, source);
      throw error;
    }
  };
}

/**
 * 413 in the interfaces' error shape (src/http/http-error.ts), as a lingering close: the body
 * is written at once (Bun sends the status line only with the first body bytes), and the
 * response ends once `rest` is drained.
 */
function payloadTooLarge(maxBytes: number, rest: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array> | null): Response {
  const body = new TextEncoder().encode(JSON.stringify({ statusCode: 413, message: `request body exceeds ${maxBytes} bytes`, error: "Payload Too Large" }));
  const headers = { "content-type": "application/json", connection: "close" };
  if (rest === null) return new Response(body, { status: 413, headers });
  const reader = rest instanceof ReadableStream ? rest.getReader() : rest;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(body);
      await drain(reader);
      controller.close();
    },
  });
  return new Response(stream, { status: 413, headers });
}

/** Reads and discards until the upload ends or a `LINGER` bound is reached. Never throws. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), LINGER.maxMs);
  let discarded = 0;
  try {
    while (discarded <= LINGER.maxBytes) {
      const { done, value } = await reader.read();
      if (done) return;
      discarded += value.byteLength;
    }
    await reader.cancel().catch(() => {});
  } catch {
    // The client went away or the runtime cut the body at its own limit: nothing left to drain.
  } finally {
    clearTimeout(timer);
  }
}
