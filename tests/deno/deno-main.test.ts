/**
 * The production entry point on Deno: `deno task start` (deno.json) runs the real src/main.ts
 * with the embedded ledger and PGlite, and a payment is verified, settled and checked on the
 * ledger over its JSON-RPC, as the README walk-through does under Bun.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createSolanaRpc, signature as toSignature } from "@solana/kit";
import { ataOf, USDC } from "../../fixtures/payment-builder.ts";
import { DEFAULT_AMOUNT, type FundingLedger, fundedPayment } from "../../fixtures/payments.ts";
import { denoGate } from "./support/deno-gate.ts";
import { type DenoMain, spawnDenoMain } from "./support/spawn-deno-main.ts";

const gate = denoGate("deno main");
const dataDir = mkdtempSync(join(tmpdir(), "deno-main-"));
const ports = { REGISTRY_PORT: "0", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0" };
let running: DenoMain | null = null;

afterAll(() => {
  running?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The embedded ledger's cheat code and blockhash, over its JSON-RPC as any client sees them. */
function rpcFunding(url: string): FundingLedger {
  const rpc = createSolanaRpc(url);
  return {
    async setTokenAccount(owner, mint, update) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "surfnet_setTokenAccount", params: [owner, mint, { amount: Number(update.amount) }] }),
      });
      const body = (await response.json()) as { error?: { message: string } };
      if (body.error) throw new Error(`surfnet_setTokenAccount: ${body.error.message}`);
      return ataOf(owner, mint);
    },
    async getLatestBlockhash() {
      return { blockhash: (await rpc.getLatestBlockhash().send()).value.blockhash };
    },
  };
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

if (gate.failInCi) test("the deno binary must be installed in CI", () => expect(gate.failInCi).toBeNull());

describe.if(gate.run)("Deno runtime (real deno binary, real src/main.ts, embedded ledger)", () => {
  test("`deno task start` becomes ready on Deno with all three listeners and JSON-only logs", async () => {
    running = await spawnDenoMain({ DATA_DIR: dataDir, ...ports });
    expect(running.ready, `${running.stdout()}\n${running.stderr()}`).not.toBeNull();
    expect(running.ready?.["runtime"]).toBe("deno");
    expect(running.ready?.["ledger"]).toBe("embedded");
    expect(running.ready?.["store"]).toBe("pglite");
    expect(Object.keys(running.urls).sort()).toEqual(["facilitator", "ledgerRpc", "registry"]);
    // Deno.serve's own "Listening on ..." line would break log shippers that parse each line.
    for (const line of running.stdout().split("\n").filter((l) => l !== "")) expect(() => JSON.parse(line)).not.toThrow();
    for (const name of ["facilitator", "registry"] as const) {
      const health = await fetch(`${running.urls[name]}/health`);
      expect(((await health.json()) as { status: string }).status).toBe("ok");
    }
  }, 120_000);

  test("a payment funded by surfnet_setTokenAccount verifies and settles; the ledger shows it moved", async () => {
    const urls = running?.urls ?? {};
    const rpcUrl = urls["ledgerRpc"] ?? "";
    const rpc = createSolanaRpc(rpcUrl);
    const feePayer = (running?.ready?.["feePayers"] as Address[])[0] as Address;
    const payment = await fundedPayment(rpcFunding(rpcUrl), feePayer);
    const lamportsBefore = (await rpc.getBalance(feePayer).send()).value;

    const verified = await post(`${urls["facilitator"]}/verify`, payment.body);
    expect(verified).toEqual({ isValid: true, payer: payment.actors.payer.address });

    const settled = await post(`${urls["facilitator"]}/settle`, payment.body);
    expect(settled["success"]).toBe(true);
    expect(settled["payer"]).toBe(payment.actors.payer.address);
    expect(settled["network"]).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    const signature = toSignature(String(settled["transaction"]));
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    expect(status?.err).toBeNull();

    const balance = async (ata: Address) => BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount);
    expect(await balance(payment.payerAta)).toBe(0n);
    expect(await balance(payment.payToAta)).toBe(DEFAULT_AMOUNT);
    expect(payment.payToAta).toBe(await ataOf(payment.actors.payTo.address, USDC));
    // Two signatures at 5,000 lamports, no priority fee: what the fee payer paid.
    expect(lamportsBefore - (await rpc.getBalance(feePayer).send()).value).toBe(10_000n);

    const again = await post(`${urls["facilitator"]}/settle`, payment.body);
    expect(again["transaction"]).toBe(signature);
    expect((again["extensions"] as { replayed?: boolean } | undefined)?.replayed).toBe(true);
  }, 60_000);

  test("SIGTERM stops it gracefully: exit 0 after 'stopped'", async () => {
    expect(await running?.stop("SIGTERM")).toBe(0);
    const messages = (running?.stdout() ?? "").split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toContain("shutting down");
    expect(messages.at(-1)).toBe("stopped");
    running = null;
  }, 60_000);

  test("a port in use stops the boot naming FACILITATOR_PORT, not the port, on Deno too", async () => {
    const blocker = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(0, "127.0.0.1", resolveListen));
    const taken = (blocker.address() as { port: number }).port;
    try {
      running = await spawnDenoMain({ DATA_DIR: dataDir, ...ports, FACILITATOR_PORT: String(taken) });
      expect(running.ready).toBeNull();
      expect(await running.exited).toBe(1);
      const failure = running.stdout().split("\n").find((l) => l.includes('"msg":"cannot listen"')) ?? "";
      expect(JSON.parse(failure)).toMatchObject({ interface: "facilitator", setting: "FACILITATOR_PORT", reason: "port already in use", code: "EADDRINUSE" });
      expect(running.stdout() + running.stderr()).not.toContain(String(taken));
    } finally {
      blocker.close();
    }
  }, 120_000);
});
