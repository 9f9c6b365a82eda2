// Real components: kit's RPC client over HTTP (Bun.serve on random ports) to the embedded
// litesvm ledger's JSON-RPC server. Failure cases use small local Bun.serve stubs (503,
// a hanging endpoint, an unhealthy node) and a closed port; nothing leaves 127.0.0.1.
import { afterAll, describe, expect, it } from "bun:test";
import { address } from "@solana/kit";
import { LedgerError, type Ledger } from "../../src/application/ports/ledger.ts";
import type { LogFields, Logger } from "../../src/application/ports/logger.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { redactUrl } from "../../src/infrastructure/logging/redact.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { describeLedgerContract } from "./ledger-contract.ts";

describeLedgerContract("kit RPC adapter -> embedded JSON-RPC server (Bun.serve, random port)", async () => {
  const dev = createLocalLedger();
  const server = serveLocalLedgerRpc(dev, { host: "127.0.0.1", port: 0 });
  return { ledger: createRpcLedger({ url: server.url }), dev, close: () => server.stop() };
});

/** A logger that records every line, to prove what reaches logs. */
function recordingLogger(lines: string[]): Logger {
  const write = (message: string, fields?: LogFields) => void lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: write, info: write, warn: write, error: write, child: (fields) => {
    const parent = JSON.stringify(fields);
    const w = (message: string, more?: LogFields) => void lines.push(`${message} ${parent} ${JSON.stringify(more ?? {})}`);
    return { debug: w, info: w, warn: w, error: w, child: () => logger };
  } };
  return logger;
}

async function failureOf(promise: Promise<unknown>): Promise<LedgerError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  if (!(error instanceof LedgerError)) throw new Error(`expected LedgerError, got ${String(error)}`);
  return error;
}

const stubs: { stop(force?: boolean): unknown }[] = [];
afterAll(async () => {
  for (const stub of stubs) await stub.stop(true);
});

function stub(fetch: (request: Request) => Response | Promise<Response>): string {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  stubs.push(server);
  return `http://127.0.0.1:${server.port}`;
}

describe("rpc ledger: failure mapping (local Bun.serve stubs)", () => {
  it("maps a closed port to unavailable", async () => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${probe.port}`;
    await probe.stop(true);
    const error = await failureOf(createRpcLedger({ url, timeoutMs: 2_000 }).getBlockHeight());
    expect(error.kind).toBe("unavailable");
  });

  it("maps HTTP 503 to unavailable, including on send", async () => {
    const ledger = createRpcLedger({ url: stub(() => new Response("busy", { status: 503 })) });
    expect((await failureOf(ledger.getLatestBlockhash())).kind).toBe("unavailable");
    const send = await failureOf(ledger.sendTransaction(new Uint8Array([1, 2, 3])));
    expect(send.kind).toBe("unavailable");
    expect(send.message).toContain("503");
  });

  it("maps a node that never answers to unavailable after the timeout", async () => {
    const release: (() => void)[] = [];
    const url = stub(() => new Promise<Response>((resolve) => release.push(() => resolve(new Response("late")))));
    const error = await failureOf(createRpcLedger({ url, timeoutMs: 100 }).ping());
    for (const r of release) r();
    expect(error.kind).toBe("unavailable");
    expect(error.message).toContain("timed out");
  });

  it("maps an unhealthy node (-32005) to unavailable, and other send errors to rejected", async () => {
    const url = stub(async (request) => {
      const body = (await request.json()) as { id: unknown; method: string };
      const error = body.method === "getHealth"
        ? { code: -32005, message: "Node is unhealthy", data: { numSlotsBehind: 42 } }
        : { code: -32002, message: "Transaction simulation failed: Blockhash not found", data: { err: "BlockhashNotFound", logs: ["log one"] } };
      return Response.json({ jsonrpc: "2.0", id: body.id, error });
    });
    const ledger = createRpcLedger({ url });
    expect((await failureOf(ledger.ping())).kind).toBe("unavailable");
    const send = await failureOf(ledger.sendTransaction(new Uint8Array([1])));
    expect(send.kind).toBe("rejected");
    expect(send.message).toContain("Blockhash not found");
    expect(send.logs).toEqual(["log one"]);
  });

  it("SECURITY: never puts API keys from the URL into errors or logs", async () => {
    const lines: string[] = [];
    const base = stub(() => new Response("nope", { status: 502 }));
    const secretUrl = base.replace("http://", "http://user:hunter2secret@") + "/v2/KEYabcdef123456789?api-key=sk_live_XYZ987";
    const ledger: Ledger = createRpcLedger({ url: secretUrl, logger: recordingLogger(lines) });
    const error = await failureOf(ledger.getBlockHeight());

    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const closedUrl = `http://127.0.0.1:${probe.port}/KEYabcdef123456789?api-key=sk_live_XYZ987`;
    await probe.stop(true);
    const closed = await failureOf(createRpcLedger({ url: closedUrl, logger: recordingLogger(lines), timeoutMs: 2_000 }).ping());

    const everything = [error.message, closed.message, ...lines].join("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of ["hunter2secret", "KEYabcdef123456789", "sk_live_XYZ987"]) expect(everything).not.toContain(secret);
    expect(redactUrl(secretUrl)).toBe(`${base.replace("http://", "http://***@")}/v2/***?api-key=***`);
  });
});

describe("rpc ledger: getTransactionEffects request and edge answers (local Bun.serve stub)", () => {
  const SIGNATURE = "5".repeat(88) as Parameters<Ledger["getTransactionEffects"]>[0];
  const OWNER = address("11111111111111111111111111111112");
  const MINT = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
  const balance = (owner: string | undefined, amount: string) => ({ accountIndex: 1, mint: MINT, ...(owner ? { owner } : {}), uiTokenAmount: { amount, decimals: 6, uiAmount: null, uiAmountString: "0" } });

  it("asks for json, version 0 and confirmed; skips owner-less balances; refuses an answer without metadata as unavailable", async () => {
    const requests: unknown[] = [];
    let meta: unknown = { err: null, preTokenBalances: [balance(OWNER, "10"), balance(undefined, "7")], postTokenBalances: [balance(OWNER, "4"), balance(undefined, "0")] };
    const url = stub(async (request) => {
      const body = (await request.json()) as { id: unknown; params: unknown[] };
      requests.push(body.params);
      return Response.json({ jsonrpc: "2.0", id: body.id, result: { slot: 9, blockTime: null, version: 0, transaction: {}, meta } });
    });
    const ledger = createRpcLedger({ url });
    expect(await ledger.getTransactionEffects(SIGNATURE)).toEqual({ slot: 9n, err: null, tokenBalanceChanges: [{ owner: OWNER, mint: MINT, delta: -6n }] });
    expect(requests[0]).toEqual([SIGNATURE, { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }]);
    meta = null;
    expect((await failureOf(ledger.getTransactionEffects(SIGNATURE))).kind).toBe("unavailable");
  });
});
