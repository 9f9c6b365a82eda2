// Attack: steer routing with the Host header. Bun and Deno build request.url from Host, and
// Elysia finds the path at url.indexOf("/", 11): `Host: a` made `GET /xx/metrics` serve
// /metrics past any proxy rule on /metrics, and an unparseable Host (`[`, `%`, `a b`) made the
// 404 handler throw (a 500, and Bun's developer page with source lines). Raw sockets (node:net)
// against an Elysia app with our error layer behind each listener adapter; Deno through the
// real deno binary (tests/deno/support/edge-probe.ts).
import { beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { bunHttpListener } from "../../src/infrastructure/http-listener/bun-http-listener.ts";
import { denoGate } from "../deno/support/deno-gate.ts";
import { probeHostHeaders } from "../deno/support/edge-probe.ts";
import { runDenoEdgeProbe } from "../deno/support/run-deno-edge-probe.ts";

const gate = denoGate("host header attacks");
const NOT_FOUND = (path: string) => `404|{"statusCode":404,"message":"no route for GET ${path}","error":"Not Found"}`;
const BAD_HOST = '400|{"statusCode":400,"message":"invalid Host header","error":"Bad Request"}';

/** What every case must get, on both runtimes. Deno refuses two Host lines itself (400, no body). */
function expected(runtime: "Bun" | "Deno"): Record<string, string> {
  return {
    "short Host moves the path": NOT_FOUND("/xx/metrics"),
    "short Host, absolute-form target": NOT_FOUND("/xx/metrics"),
    "short Host, real route": "200|the metrics",
    "empty Host, unknown path": NOT_FOUND("/nope"),
    "Host [": BAD_HOST,
    "Host %": BAD_HOST,
    "Host with a space": BAD_HOST,
    "Host with a slash": BAD_HOST,
    "Host with a query": BAD_HOST,
    "Host with userinfo": BAD_HOST,
    "two Host lines": runtime === "Bun" ? BAD_HOST : "400|",
    "no Host (HTTP/1.0)": NOT_FOUND("/nope"),
    "protocol-relative target": NOT_FOUND("//evil.example/metrics"),
    // The app sees a fixed origin, whatever the client named.
    "IPv6 Host with port": "200|http://localhost/url?q=1",
    "ordinary Host": "200|http://localhost/url",
  };
}

function judge(runtime: "Bun" | "Deno", observe: () => Promise<Record<string, string>>): void {
  let seen: Record<string, string> = {};
  beforeAll(async () => {
    seen = await observe();
  }, 120_000);

  for (const [name, answer] of Object.entries(expected(runtime))) {
    test(`${runtime}: ${name} -> ${answer.slice(0, 3)}`, () => {
      expect(seen[name]).toBe(answer);
    });
  }

  test(`${runtime}: no case is a 500 or an HTML page, and none reached /metrics by another path`, () => {
    for (const [name, answer] of Object.entries(seen)) {
      expect({ name, status: answer.slice(0, 3) }).not.toEqual({ name, status: "500" });
      expect(answer.toLowerCase()).not.toContain("<!doctype");
      if (name !== "short Host, real route") expect(answer).not.toContain("the metrics");
    }
  });
}

describe("Host header attacks, Bun adapter (Bun.serve, raw sockets)", () => {
  judge("Bun", () => probeHostHeaders(bunHttpListener));

  test("a handler that throws gets a bare 500, never Bun's developer page (working directory, source lines); onError is told", async () => {
    const told: unknown[] = [];
    const server = bunHttpListener.listen({
      hostname: "127.0.0.1",
      port: 0,
      maxRequestBodySize: 1024,
      onError: (error) => told.push(error),
      fetch: () => {
        throw new Error(`thrown from ${process.cwd()}`);
      },
    });
    try {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(server.port, "127.0.0.1");
        let text = "";
        socket.on("data", (chunk) => (text += chunk.toString()));
        socket.on("close", () => resolve(text));
        socket.write("GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
      });
      expect(answer).toStartWith("HTTP/1.1 500");
      expect(answer).not.toContain(process.cwd());
      expect(answer.toLowerCase()).not.toContain("<html");
      expect(answer).toEndWith('{"statusCode":500,"message":"internal error","error":"Internal Server Error"}');
      expect(told).toHaveLength(1);
    } finally {
      await server.stop(true);
    }
  });
});

if (gate.failInCi) test("the deno binary must be installed in CI", () => expect(gate.failInCi).toBeNull());

describe.if(gate.run)("Host header attacks, Deno adapter (real deno binary, Deno.serve, raw sockets)", () => {
  judge("Deno", async () => runDenoEdgeProbe<Record<string, string>>("hosts"));
});

