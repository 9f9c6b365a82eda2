// The plain JSON-RPC client the RPC ledger uses for the calls every settlement makes: what it
// sends, and that u64 answers stay exact past 2^53. Local Bun.serve stubs on 127.0.0.1.
import { afterAll, describe, expect, it } from "bun:test";
import { address } from "@solana/kit";
import { LedgerError } from "../../src/application/ports/ledger.ts";
import { fromBase64, toBase64 } from "../../src/domain/codecs/base64.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";

const stubs: { stop(force?: boolean): unknown }[] = [];
afterAll(async () => {
  for (const stub of stubs) await stub.stop(true);
});

type Body = { jsonrpc: string; id: unknown; method: string; params: unknown[] };

/** A node that answers each request with `answer(body)` as raw JSON text, and records the requests. */
function stubNode(answer: (body: Body) => string): { url: string; requests: Body[] } {
  const requests: Body[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Body;
      requests.push(body);
      return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},${answer(body)}}`, { headers: { "content-type": "application/json" } });
    },
  });
  stubs.push(server);
  return { url: `http://127.0.0.1:${server.port}`, requests };
}

const OWNER = address("TokenkegQfeZyiNwAJbNbGMPXDBf7aE2b5q3T89ZEg3");
const ACCOUNT = address("11111111111111111111111111111112");
const SIGNATURE = "5".repeat(88);

describe("rpc ledger: the plain JSON-RPC client on the settlement path (local Bun.serve stubs)", () => {
  it("sends the transaction as base64 with confirmed preflight and returns the node's signature", async () => {
    const node = stubNode(() => `"result":"${SIGNATURE}"`);
    const wire = new Uint8Array(300).map((_, i) => (i * 7) & 0xff);
    expect(await createRpcLedger({ url: node.url }).sendTransaction(wire)).toBe(SIGNATURE as never);
    expect(node.requests[0]).toMatchObject({ jsonrpc: "2.0", method: "sendTransaction", params: [toBase64(wire), { encoding: "base64", preflightCommitment: "confirmed" }] });
    expect(fromBase64(node.requests[0]?.params[0] as string)).toEqual(wire);
  });

  it("keeps u64 answers exact past 2^53: lamports, block height and status slots", async () => {
    const max = "18446744073709551615";
    const node = stubNode((body) => {
      if (body.method === "getBlockHeight") return `"result":9007199254740993`;
      if (body.method === "getSignatureStatuses") {
        return `"result":{"context":{"slot":1},"value":[{"slot":9007199254740995,"confirmations":null,"err":{"InstructionError":[0,{"Custom":1}]},"confirmationStatus":"finalized","status":{"Err":{}}},null]}`;
      }
      const data = toBase64(new Uint8Array([1, 2, 3]));
      return `"result":{"context":{"slot":1},"value":[{"data":["${data}","base64"],"executable":false,"lamports":${max},"owner":"${OWNER}","rentEpoch":${max},"space":3},null]}`;
    });
    const ledger = createRpcLedger({ url: node.url });
    expect(await ledger.getBlockHeight()).toBe(9007199254740993n);
    const [account, missing] = await ledger.getMultipleAccounts([ACCOUNT, OWNER]);
    expect(account).toEqual({ address: ACCOUNT, owner: OWNER, lamports: BigInt(max), data: new Uint8Array([1, 2, 3]), executable: false });
    expect(missing).toBeNull();
    expect(await ledger.getSignatureStatuses([SIGNATURE, SIGNATURE] as never)).toEqual([
      { slot: 9007199254740995n, confirmationStatus: "finalized", err: '{"InstructionError":[0,{"Custom":1}]}' },
      null,
    ]);
    expect(node.requests.map((r) => [r.method, r.params])).toEqual([
      ["getBlockHeight", [{ commitment: "confirmed" }]],
      ["getMultipleAccounts", [[ACCOUNT, OWNER], { encoding: "base64", commitment: "confirmed" }]],
      ["getSignatureStatuses", [[SIGNATURE, SIGNATURE], { searchTransactionHistory: true }]],
    ]);
  });

  it("refuses answers it cannot read as unavailable, never as a value", async () => {
    const node = stubNode((body) => (body.method === "getBlockHeight" ? `"result":-1` : body.method === "isBlockhashValid" ? `"result":{"value":"yes"}` : `"result":{"value":[]}`));
    const ledger = createRpcLedger({ url: node.url });
    for (const call of [ledger.getBlockHeight(), ledger.isBlockhashValid("x"), ledger.getMultipleAccounts([ACCOUNT]), ledger.getSignatureStatuses([SIGNATURE as never])]) {
      const error = await call.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(LedgerError);
      expect((error as LedgerError).kind).toBe("unavailable");
    }
  });
});
