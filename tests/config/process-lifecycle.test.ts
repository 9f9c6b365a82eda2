// Real child processes of `bun src/main.ts`: shutdown is bounded by SHUTDOWN_GRACE_SECONDS
// even with a request that never completes, and listen failures name the setting to fix
// without printing its value.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnService } from "../walkthrough/support/spawn-service.ts";

// A first start creates the database and the development key (about 4 s); every test then
// starts from a copy of that DATA_DIR, which takes about 0.5 s.
const template = mkdtempSync(join(tmpdir(), "lifecycle-template-"));
const dataDirs: string[] = [template];
beforeAll(async () => {
  const first = await spawnService({ DATA_DIR: template, ROLE: "facilitator", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0" });
  expect(await first.stop("SIGTERM")).toBe(0);
}, 60_000);
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lifecycle-"));
  cpSync(template, dir, { recursive: true });
  dataDirs.push(dir);
  return dir;
}

/** Runs main.ts until it exits on its own; the output is stdout and stderr together. */
async function runToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<{ exitCode: number | null; output: string }> {
  const child = Bun.spawn([BUN, "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", LOCAL_LEDGER_PORT: "0", DATA_DIR: freshDataDir(), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { exitCode, output: stdout + stderr };
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = probe.port ?? 0;
  probe.stop(true);
  return port;
}

describe("shutdown is bounded by SHUTDOWN_GRACE_SECONDS", () => {
  test("a POST /verify whose body never ends does not hold the process after SIGTERM", async () => {
    const running = await spawnService({
      DATA_DIR: freshDataDir(),
      ROLE: "facilitator",
      FACILITATOR_PORT: "0",
      LOCAL_LEDGER_PORT: "0",
      SHUTDOWN_GRACE_SECONDS: "1",
    });
    // One chunk of a JSON body, then silence: the request stays open until the server cuts it.
    const sent = { bytes: 0 };
    const hung = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode('{"paymentPayload":');
        sent.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const abort = new AbortController();
    const request = fetch(`${running.urls["facilitator"]}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: hung,
      duplex: "half",
      signal: abort.signal,
    } as RequestInit).catch((error: unknown) => error);
    await Bun.sleep(300);
    expect(sent.bytes).toBeGreaterThan(0);

    const started = performance.now();
    const exitCode = await running.stop("SIGTERM");
    const seconds = (performance.now() - started) / 1000;
    abort.abort();
    await request;

    expect(seconds).toBeLessThan(4);
    expect(exitCode).toBe(1);
    const deadline = running.logs().split("\n").find((line) => line.includes("shutdown deadline passed"));
    expect(deadline).toBeDefined();
    expect(JSON.parse(deadline ?? "{}")).toMatchObject({ level: "error", stillOpen: [{ name: "facilitator", pendingRequests: 1 }] });
  }, 30_000);

  test("with nothing in flight, SIGTERM stops cleanly with exit code 0", async () => {
    const running = await spawnService({ DATA_DIR: freshDataDir(), ROLE: "facilitator", FACILITATOR_PORT: "0", SHUTDOWN_GRACE_SECONDS: "1", LOCAL_LEDGER_PORT: "0" });
    expect((await fetch(`${running.urls["facilitator"]}/health`)).status).toBe(200);
    expect(await running.stop("SIGTERM")).toBe(0);
    expect(running.logs()).toContain('"msg":"stopped"');
  }, 30_000);
});

describe("the embedded ledger's JSON-RPC (cheat codes) is local only", () => {
  test("with HOST=0.0.0.0 the interfaces bind every address, the ledger RPC 127.0.0.1 only", async () => {
    const running = await spawnService({ DATA_DIR: freshDataDir(), HOST: "0.0.0.0", ROLE: "facilitator", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0" });
    try {
      expect(running.urls["facilitator"]).toStartWith("http://0.0.0.0:");
      expect(running.urls["ledgerRpc"]).toStartWith("http://127.0.0.1:");
    } finally {
      await running.stop("SIGKILL");
    }
  }, 30_000);
});

describe("listen failures name the setting, never its value (real child process)", () => {
  test("a HOST that cannot bind: exit 1, names HOST, no stack trace, no value", async () => {
    for (const [host, port] of [["999.1.1.1", "0"], ["no-such-host.invalid", String(freePort())]] as const) {
      const { exitCode, output } = await runToExit({ ROLE: "registry", HOST: host, REGISTRY_PORT: port });
      expect({ host, exitCode }).toEqual({ host, exitCode: 1 });
      expect(output).not.toContain(host);
      const line = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
      expect(line).toMatchObject({ level: "error", msg: "cannot listen", interface: "registry", setting: "HOST" });
      expect(String(line["reason"])).toContain("cannot bind");
      expect(output).not.toContain("    at ");
    }
  }, 60_000);

  test("a port already in use: exit 1, names FACILITATOR_PORT and says it is in use", async () => {
    const occupant = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("occupied") });
    try {
      const { exitCode, output } = await runToExit({ ROLE: "facilitator", FACILITATOR_PORT: String(occupant.port) });
      expect(exitCode).toBe(1);
      const line = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
      expect(line).toMatchObject({ level: "error", msg: "cannot listen", interface: "facilitator", setting: "FACILITATOR_PORT", reason: "port already in use" });
      expect(output).not.toContain("Failed to start server");
      expect(output).not.toContain(`:${occupant.port}`);
    } finally {
      occupant.stop(true);
    }
  }, 30_000);
});
