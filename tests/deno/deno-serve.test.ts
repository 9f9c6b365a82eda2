import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { DENO, ROOT, denoGate } from "./support/deno-gate.ts";

const gate = denoGate("deno serve");

let rpc: { url: string; stop(): Promise<void> };
let child: ReturnType<typeof Bun.spawn>;
let base = "";

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0] ?? "";
}

if (gate.failInCi) test("the deno binary must be installed in CI", () => expect(gate.failInCi).toBeNull());

describe.if(gate.run)("Deno runtime (real deno binary from npm, Deno.serve, RPC ledger over the embedded ledger, PGlite)", () => {
  beforeAll(async () => {
    rpc = serveLocalLedgerRpc(createLocalLedger(), { host: "127.0.0.1", port: 0 });
    child = Bun.spawn([DENO, "run", "--quiet", "-A", "--node-modules-dir=manual", "tests/deno/deno-facilitator-server.ts", rpc.url], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "inherit",
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
    });
    const line = await firstLine(child.stdout as ReadableStream<Uint8Array>);
    const { port, runtime } = JSON.parse(line) as { port: number; runtime: string };
    expect(runtime).toBe("deno");
    base = `http://127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    child?.kill();
    await child?.exited;
    await rpc?.stop();
  });

  test("GET /health answers ok from Deno with real ledger and store checks", async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(body.status).toBe("ok");
    expect(body.checks["ledger"]?.status).toBe("ok");
    expect(body.checks["store"]?.status).toBe("ok");
  });

  test("GET /supported lists the kinds and the fee payer from Deno", async () => {
    const response = await fetch(`${base}/supported`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { kinds: { x402Version: number; network: string }[]; signers: Record<string, string[]> };
    expect(body.kinds.map((k) => k.x402Version)).toEqual([2, 1]);
    expect(body.signers["solana:*"]?.length).toBe(1);
  });

  test("GET /metrics counts the requests served, in Prometheus format, from Deno", async () => {
    const response = await fetch(`${base}/metrics`);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.text()).toMatch(/http_requests_total\{service="facilitator",method="GET",route="\/supported",status="200"\} 1/);
  });

  test("POST /verify with a malformed body gives the specified 400 from Deno", async () => {
    const response = await fetch(`${base}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("Bad Request");
  });
});
