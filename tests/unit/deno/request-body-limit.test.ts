import { describe, expect, test } from "bun:test";
import { withRequestBodyLimit } from "../../../src/infrastructure/http-listener/request-body-limit.ts";

const peer = { remoteAddress: "192.0.2.1" };

function chunkedRequest(size: number): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let sent = 0; sent < size; sent += 100) controller.enqueue(new Uint8Array(Math.min(100, size - sent)));
      controller.close();
    },
  });
  return new Request("http://service.test/verify", { method: "POST", body, duplex: "half" } as RequestInit);
}

describe("request body backstop of the Deno listener (Request objects, no sockets)", () => {
  test("a declared length past the limit is 413 before the handler runs", async () => {
    let called = false;
    const limited = withRequestBodyLimit(() => ((called = true), new Response("ok")), 10);
    const response = await limited(new Request("http://service.test/", { method: "POST", headers: { "content-length": "11" }, body: "x".repeat(11) }), peer);
    expect(response.status).toBe(413);
    expect(called).toBe(false);
  });

  test("a handler that swallows the failed read of an oversize chunked body still answers 413", async () => {
    const limited = withRequestBodyLimit(async (request) => {
      const text = await request.text().catch(() => "");
      return new Response(`read ${text.length}`);
    }, 250);
    expect((await limited(chunkedRequest(1000), peer)).status).toBe(413);
  });

  test("a chunked body within the limit reaches the handler whole, with method, URL, headers and peer", async () => {
    const limited = withRequestBodyLimit(async (request, connection) => {
      const bytes = (await request.arrayBuffer()).byteLength;
      return Response.json({ bytes, method: request.method, url: request.url, peer: connection.remoteAddress });
    }, 250);
    expect(await (await limited(chunkedRequest(250), peer)).json()).toEqual({ bytes: 250, method: "POST", url: "http://service.test/verify", peer: "192.0.2.1" });
  });

  test("a handler's own failure on a body within the limit is not disguised as 413", async () => {
    const limited = withRequestBodyLimit(() => Promise.reject(new Error("broken store")), 250);
    await expect(limited(chunkedRequest(100), peer)).rejects.toThrow("broken store");
  });
});
