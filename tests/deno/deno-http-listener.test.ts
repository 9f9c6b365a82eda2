/**
 * Both HTTP listener adapters meet one contract on real sockets: the Bun adapter in this
 * process, the Deno adapter under the real deno binary (tests/deno/support/listener-probe.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { bunHttpListener } from "../../src/infrastructure/http-listener/bun-http-listener.ts";
import { DENO, ROOT, denoEnv, denoGate } from "./support/deno-gate.ts";
import { probeListener } from "./support/listener-probe.ts";

const gate = denoGate("deno http listener");
const slowAnswer = '200 {"bytes":0,"remoteAddress":"127.0.0.1"}';
const tooLarge = '413 {"statusCode":413,"message":"request body exceeds 1024 bytes","error":"Payload Too Large"}';

function contract(runtime: string, observe: () => Promise<Record<string, unknown>>): void {
  let seen: Record<string, unknown> = {};
  beforeAll(async () => {
    seen = await observe();
  }, 60_000);

  test(`${runtime}: binds a free port for 0, reports it in the URL, and gives the runtime's code for a port in use`, () => {
    expect(seen["port"]).toBeGreaterThan(0);
    expect(seen["url"]).toBe(`http://127.0.0.1:${seen["port"]}`);
    expect(seen["samePortAgain"]).toBe("EADDRINUSE");
  });

  test(`${runtime}: bodies within the limit arrive whole with the peer address; past it 413 in the error shape, declared or chunked`, () => {
    expect(seen["small"]).toBe('200 {"bytes":100,"remoteAddress":"127.0.0.1"}');
    expect(seen["chunkedWithin"]).toBe('200 {"bytes":1024,"remoteAddress":"127.0.0.1"}');
    expect(seen["declaredTooLarge"]).toBe(tooLarge);
    expect(seen["chunkedTooLarge"]).toBe(tooLarge);
  });

  test(`${runtime}: a graceful stop refuses new connections, answers the in-flight request and waits for it`, () => {
    expect(seen["pendingDuringSlow"]).toBe(1);
    expect(seen["newConnectionWhileDraining"]).toBe("connection failed");
    expect(seen["slowAnsweredDuringGracefulStop"]).toBe(slowAnswer);
    expect(seen["gracefulStopMs"]).toBeGreaterThanOrEqual(300);
    expect(seen["pendingAfterStop"]).toBe(0);
  });

  test(`${runtime}: a forced stop closes the in-flight connection at once`, () => {
    expect(seen["slowDuringForcedStop"]).toBe("connection failed");
    expect(seen["forcedStopMs"]).toBeLessThan(300);
  });

  test(`${runtime}: WebSocket upgrades on the same port: text both ways, HTTP beside them, the session told of the close, a message past the limit closes (1009)`, () => {
    expect(seen["wsReply"]).toBe("PING OVER THE LEDGER SOCKET");
    expect(seen["wsPlainBeside"]).toBe("200 plain");
    expect(seen["wsEvents"]).toBe("open,closed");
    expect(seen["wsTooBigClose"]).toBe(1009);
  });

  test(`${runtime}: a forced stop during a drain returns at once`, () => {
    expect(seen["forceWhileDrainingMs"]).toBeLessThan(300);
    // Bun cuts the draining connection; Deno cannot once shutdown() has begun, and main's exit
    // right after the forced stop closes it instead.
    expect(seen["slowDuringForceWhileDraining"]).toBe(runtime === "Bun" ? "connection failed" : slowAnswer);
  });
}

describe("HTTP listener contract, Bun adapter (Bun.serve, real sockets)", () => {
  contract("Bun", () => probeListener(bunHttpListener));
});

if (gate.failInCi) test("the deno binary must be installed in CI", () => expect(gate.failInCi).toBeNull());

describe.if(gate.run)("HTTP listener contract, Deno adapter (real deno binary, Deno.serve, real sockets)", () => {
  contract("Deno", async () => {
    const run = spawnSync(DENO, ["run", "-A", "tests/deno/support/deno-http-listener-probe.ts"], { cwd: ROOT, env: denoEnv({}), encoding: "utf8", timeout: 60_000 });
    if (run.status !== 0) throw new Error(`probe failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
  });
});
