/**
 * The HTTP edge of a listener adapter, observed on raw sockets (node:net): hostile Host headers
 * and request targets against an Elysia app behind the adapter, and a Node client (the real
 * `node` binary) whose upload is refused. Runs the same way under Bun and under Deno and
 * returns what it saw, for host-header-attacks.test.ts and body-size-attacks.test.ts to judge.
 */
import { execFile } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { Elysia } from "elysia";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import type { HttpListener } from "../../../src/infrastructure/http-listener/http-listener.ts";

export const EDGE_BODY_LIMIT = 1024 * 1024;
const NODE_CLIENT = fileURLToPath(new URL("./node-upload-client.mjs", import.meta.url));

/** Each case: a raw request, sent alone on a fresh connection. */
export const HOST_CASES: Readonly<Record<string, string>> = {
  "short Host moves the path": "GET /xx/metrics HTTP/1.1\r\nHost: a\r\n",
  "short Host, absolute-form target": "GET http://a/xx/metrics HTTP/1.1\r\nHost: a\r\n",
  "short Host, real route": "GET /metrics HTTP/1.1\r\nHost: a\r\n",
  "empty Host, unknown path": "GET /nope HTTP/1.1\r\nHost: \r\n",
  "Host [": "GET /nope HTTP/1.1\r\nHost: [\r\n",
  "Host %": "GET /nope HTTP/1.1\r\nHost: %\r\n",
  "Host with a space": "GET /nope HTTP/1.1\r\nHost: a b\r\n",
  "Host with a slash": "GET /metrics HTTP/1.1\r\nHost: a/b\r\n",
  "Host with a query": "GET /nope HTTP/1.1\r\nHost: a?b\r\n",
  "Host with userinfo": "GET /nope HTTP/1.1\r\nHost: u@a\r\n",
  "two Host lines": "GET /nope HTTP/1.1\r\nHost: a\r\nHost: b\r\n",
  "no Host (HTTP/1.0)": "GET /nope HTTP/1.0\r\n",
  "protocol-relative target": "GET //evil.example/metrics HTTP/1.1\r\nHost: ab.cd\r\n",
  "IPv6 Host with port": "GET /url?q=1 HTTP/1.1\r\nHost: [::1]:4020\r\n",
  "ordinary Host": "GET /url HTTP/1.1\r\nHost: facilitator.example.com\r\n",
};

/** `status|body` of one raw exchange; the body cut to 200 characters. */
function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? "no status";
      const body = text.slice(text.indexOf("\r\n\r\n") + 4);
      resolve(`${status}|${body.slice(0, 200)}`);
    };
    const timer = setTimeout(done, 3000);
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("end", done);
    socket.on("error", done);
    socket.write(`${head}${head.includes("HTTP/1.0") ? "" : "Connection: close\r\n"}\r\n`);
  });
}

/** `/metrics` stands for any route a proxy rule protects; `/url` shows what URL the app was given. */
function edgeApp() {
  return new Elysia()
    .use(errorLayer(silentLogger))
    .get("/metrics", () => "the metrics")
    .get("/url", ({ request }) => request.url);
}

export async function probeHostHeaders(listener: HttpListener): Promise<Record<string, string>> {
  const app = edgeApp();
  const server = listener.listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: EDGE_BODY_LIMIT, fetch: (request) => app.handle(request) });
  const seen: Record<string, string> = {};
  try {
    for (const [name, head] of Object.entries(HOST_CASES)) seen[name] = await rawExchange(server.port, head);
  } finally {
    await server.stop(true);
  }
  return seen;
}

/**
 * `times` uploads of `bytes` by node:http with Content-Length, each on a new connection, to a
 * listener whose handler reads the body: what the client got, counted (`{"413": 20}`).
 */
export async function probeRefusedUploads(listener: HttpListener, bytes: number, times: number): Promise<Record<string, number>> {
  const server = listener.listen({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: EDGE_BODY_LIMIT,
    fetch: async (request) => new Response(String((await request.arrayBuffer()).byteLength)),
  });
  try {
    const output = await new Promise<string>((resolve, reject) =>
      execFile("node", [NODE_CLIENT, `${server.url}/upload`, String(bytes), String(times)], { encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`node client failed: ${stderr}`)) : resolve(stdout),
      ),
    );
    return JSON.parse(output.trim()) as Record<string, number>;
  } finally {
    await server.stop(true);
  }
}
