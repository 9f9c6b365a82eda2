import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, type RunningService, spawnService } from "./support/spawn-service.ts";

const dataDir = mkdtempSync(join(tmpdir(), "walkthrough-"));
const defaults = { DATA_DIR: dataDir, REGISTRY_PORT: "0", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0" };
let running: RunningService | null = null;

afterAll(async () => {
  await running?.stop("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("README walk-through (real child process: npm start's entry with embedded ledger and PGlite)", () => {
  test("starts with no configuration, serves both interfaces and the ledger RPC", async () => {
    running = await spawnService(defaults);
    expect(Object.keys(running.urls).sort()).toEqual(["facilitator", "ledgerRpc", "registry"]);
    for (const name of ["facilitator", "registry"] as const) {
      const health = await fetch(`${running.urls[name]}/health`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { status: string }).status).toBe("ok");
    }
    const rpc = await fetch(running.urls["ledgerRpc"] ?? "", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getGenesisHash" }),
    });
    expect(((await rpc.json()) as { result: string }).result).toBe("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi");
    // The development key is private to the user.
    expect(statSync(join(dataDir, "fee-payer.json")).mode & 0o777).toBe(0o600);
  }, 60_000);

  test("the example payment verifies, settles, moves 1.5 USDC and replays idempotently", async () => {
    const urls = running?.urls ?? {};
    const example = Bun.spawnSync([BUN, "examples/pay-on-embedded-ledger.ts", urls["facilitator"] ?? "", urls["ledgerRpc"] ?? ""], { cwd: ROOT });
    const out = example.stdout.toString();
    expect(example.exitCode).toBe(0);
    expect(out).toContain('verify: {"isValid":true');
    expect(out).toContain('settle: {"success":true');
    expect(out).toContain("payer: 8.5 USDC; merchant: 1.5 USDC");
    expect(out).toContain('"replayed":true');
  }, 60_000);

  test("a second start reuses DATA_DIR: the same development fee payer and the existing database", async () => {
    const first = running?.ready["feePayers"];
    expect(await running?.stop("SIGTERM")).toBe(0);
    running = await spawnService(defaults);
    expect(running.ready["feePayers"]).toEqual(first);
    expect(running.logs()).toContain("using development fee payer");
  }, 60_000);
});
