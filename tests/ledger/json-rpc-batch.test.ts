// The RPC ledger's send batching (src/infrastructure/ledger/json-rpc-batch.ts): sends made in one
// event-loop turn go to the node as one JSON-RPC batch, each caller gets its own answer (matched by
// id), and a node that refuses batches gets single calls. Simulations stay single requests.
// Local Bun.serve stubs on 127.0.0.1.
import { afterAll, describe, expect, it } from "bun:test";
import type { Signature } from "@solana/kit";
import { LedgerError } from "../../src/application/ports/ledger.ts";
import { fromBase64, toBase64 } from "../../src/domain/codecs/base64.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";

const stubs: { stop(force?: boolean): unknown }[] = [];
afterAll(async () => {
  for (const stub of stubs) await stub.stop(true);
});

type Call = { jsonrpc: string; id: number; method: string; params: unknown[] };
/** What the stub answers for one call: a JSON-RPC member (`"result":...` or `"error":...`), or null to leave it out. */
type Answer = (call: Call) => string | null;

/** A node that records each HTTP body; `batches` answers arrays (reversed, to prove matching by id). */
function stubNode(answer: Answer, batches: "answer" | "refuse" = "answer"): { url: string; bodies: unknown[] } {
  const bodies: unknown[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Call | Call[];
      bodies.push(body);
      const one = (call: Call) => {
        const member = answer(call);
        return member === null ? null : `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},${member}}`;
      };
      if (!Array.isArray(body)) return new Response(one(body) ?? "{}", { headers: { "content-type": "application/json" } });
      if (batches === "refuse") return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are not allowed" } });
      const entries = body.map(one).filter((entry) => entry !== null).reverse();
      return new Response(`[${entries.join(",")}]`, { headers: { "content-type": "application/json" } });
    },
  });
  stubs.push(server);
  return { url: `http://127.0.0.1:${server.port}`, bodies };
}

/** The signature a send of `wire` lands as: its first byte names it, so answers cannot be swapped unseen. */
function signatureOf(wire: Uint8Array): string {
  return `sig-${wire[0]}`;
}

/** A node that takes every send. */
function sent(call: Call): string {
  return `"result":${JSON.stringify(signatureOf(fromBase64(call.params[0] as string)))}`;
}

function wireOf(tag: number): Uint8Array {
  return new Uint8Array(200).fill(tag);
}

const SKIP_PREFLIGHT = { skipPreflight: true } as const;

describe("rpc ledger: sends of one event-loop turn share a JSON-RPC batch (local Bun.serve stubs)", () => {
  it("sends concurrent transactions as one batch and gives each caller its own signature", async () => {
    const node = stubNode(sent);
    const ledger = createRpcLedger({ url: node.url });
    const signatures = await Promise.all([1, 2, 3, 4].map((tag) => ledger.sendTransaction(wireOf(tag), SKIP_PREFLIGHT)));
    expect(signatures as readonly string[]).toEqual(["sig-1", "sig-2", "sig-3", "sig-4"]);
    expect(node.bodies).toHaveLength(1);
    const batch = node.bodies[0] as Call[];
    expect(batch.map((call) => call.method)).toEqual(Array(4).fill("sendTransaction"));
    expect(batch[0]?.params).toEqual([toBase64(wireOf(1)), { encoding: "base64", skipPreflight: true }]);
    expect(new Set(batch.map((call) => call.id)).size).toBe(4);
  });

  it("sends a transaction sent alone as a plain request, as before batching", async () => {
    const node = stubNode(sent);
    expect(await createRpcLedger({ url: node.url }).sendTransaction(wireOf(9), SKIP_PREFLIGHT) as string).toBe("sig-9");
    expect(Array.isArray(node.bodies[0])).toBe(false);
  });

  it("keeps simulations single requests, however many run at once (/verify's path is unchanged)", async () => {
    const node = stubNode((call) => {
      const wire = fromBase64(call.params[0] as string);
      return `"result":{"context":{"slot":1},"value":{"err":null,"logs":["tx ${wire[0]}"],"unitsConsumed":${wire[0]},"accounts":null}}`;
    });
    const ledger = createRpcLedger({ url: node.url });
    const outcomes = await Promise.all([1, 2, 3].map((tag) => ledger.simulateTransaction(wireOf(tag))));
    expect(outcomes).toEqual([1, 2, 3].map((tag) => ({ ok: true, unitsConsumed: BigInt(tag), logs: [`tx ${tag}`] })));
    expect(node.bodies.map((body) => Array.isArray(body))).toEqual([false, false, false]);
  });

  it("fails only the send the node refused or left out of the batch answer", async () => {
    const node = stubNode((call) => {
      const tag = fromBase64(call.params[0] as string)[0];
      if (tag === 2) return `"error":{"code":-32002,"message":"Transaction simulation failed: Blockhash not found","data":{"err":"BlockhashNotFound","logs":[]}}`;
      return tag === 3 ? null : sent(call);
    });
    const ledger = createRpcLedger({ url: node.url });
    const [first, refused, missing] = await Promise.allSettled([1, 2, 3].map((tag) => ledger.sendTransaction(wireOf(tag), SKIP_PREFLIGHT)));
    expect(node.bodies).toHaveLength(1);
    expect(first as PromiseSettledResult<string> | undefined).toEqual({ status: "fulfilled", value: "sig-1" });
    // The node's "no" to that one transaction is a refusal, with its reason.
    const refusal: unknown = refused?.status === "rejected" ? refused.reason : null;
    expect(refusal).toBeInstanceOf(LedgerError);
    expect((refusal as LedgerError).kind).toBe("rejected");
    expect((refusal as LedgerError).message).toContain("Blockhash not found");
    // No answer is never a signature: that one send is unavailable (the caller's retry resends the same bytes).
    const reason: unknown = missing?.status === "rejected" ? missing.reason : null;
    expect(reason).toBeInstanceOf(LedgerError);
    expect((reason as LedgerError).kind).toBe("unavailable");
  });

  it("asks the statuses looked at with the sends as one call at the end of the sends' batch, and gives each its own", async () => {
    const node = stubNode((call) => {
      if (call.method === "sendTransaction") return sent(call);
      const asked = call.params[0] as string[];
      return `"result":{"context":{"slot":7},"value":${JSON.stringify(asked.map((s) => (s === "sig-2" ? null : { slot: 7, confirmations: null, err: null, confirmationStatus: "confirmed" })))}}`;
    });
    const ledger = createRpcLedger({ url: node.url });
    const sends = [1, 2, 3].map((tag) => ledger.sendTransaction(wireOf(tag), SKIP_PREFLIGHT));
    const looks = ["sig-1", "sig-2", "sig-3"].map((s) => ledger.lookAfterSends?.(s as Signature));
    await Promise.all(sends);
    expect(await Promise.all(looks)).toEqual([{ slot: 7n, confirmationStatus: "confirmed", err: null }, null, { slot: 7n, confirmationStatus: "confirmed", err: null }]);
    expect(node.bodies).toHaveLength(1);
    const batch = node.bodies[0] as Call[];
    expect(batch.map((call) => call.method)).toEqual(["sendTransaction", "sendTransaction", "sendTransaction", "getSignatureStatuses"]);
    expect(batch[3]?.params[0]).toEqual(["sig-1", "sig-2", "sig-3"]);
  });

  it("resends each transaction alone to a node that refuses batches, and sends it no batch again", async () => {
    const node = stubNode(sent, "refuse");
    const ledger = createRpcLedger({ url: node.url });
    expect(await Promise.all([5, 6].map((tag) => ledger.sendTransaction(wireOf(tag), SKIP_PREFLIGHT))) as readonly string[]).toEqual(["sig-5", "sig-6"]);
    expect(await Promise.all([7, 8].map((tag) => ledger.sendTransaction(wireOf(tag), SKIP_PREFLIGHT))) as readonly string[]).toEqual(["sig-7", "sig-8"]);
    expect(node.bodies.map((body) => Array.isArray(body))).toEqual([true, false, false, false, false]);
  });

  it("answers every send of a batch the node fails with a 5xx as unavailable, and resends none itself", async () => {
    let posts = 0;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (posts++, new Response("down", { status: 503 })) });
    stubs.push(server);
    const ledger = createRpcLedger({ url: `http://127.0.0.1:${server.port}` });
    const results = await Promise.allSettled([1, 2, 3].map((tag) => ledger.sendTransaction(wireOf(tag), SKIP_PREFLIGHT)));
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect(((result as PromiseRejectedResult).reason as LedgerError).kind).toBe("unavailable");
    }
    expect(posts).toBe(1);
  });
});
