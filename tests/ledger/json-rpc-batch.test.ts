// The RPC ledger's read batching (src/infrastructure/ledger/json-rpc-batch.ts): simulations and
// blockhash checks made in one event-loop turn go to the node as one JSON-RPC batch, each caller
// gets its own answer (matched by id), and a node that refuses batches gets single calls.
// Local Bun.serve stubs on 127.0.0.1.
import { afterAll, describe, expect, it } from "bun:test";
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

/** A successful simulation whose units name the transaction (its first byte), so answers cannot be swapped unseen. */
function simulated(call: Call): string {
  const wire = fromBase64(call.params[0] as string);
  return `"result":{"context":{"slot":1},"value":{"err":null,"logs":["tx ${wire[0]}"],"unitsConsumed":${wire[0]},"accounts":null}}`;
}

function wireOf(tag: number): Uint8Array {
  return new Uint8Array(200).fill(tag);
}

describe("rpc ledger: reads of one event-loop turn share a JSON-RPC batch (local Bun.serve stubs)", () => {
  it("sends concurrent simulations and a blockhash check as one batch and gives each caller its own answer", async () => {
    const node = stubNode((call) => (call.method === "isBlockhashValid" ? `"result":{"context":{"slot":1},"value":true}` : simulated(call)));
    const ledger = createRpcLedger({ url: node.url });
    const [valid, ...outcomes] = await Promise.all([ledger.isBlockhashValid("hash"), ...[1, 2, 3, 4].map((tag) => ledger.simulateTransaction(wireOf(tag)))]);
    expect(valid).toBe(true);
    expect(outcomes).toEqual([1, 2, 3, 4].map((tag) => ({ ok: true, unitsConsumed: BigInt(tag), logs: [`tx ${tag}`] })));
    expect(node.bodies).toHaveLength(1);
    const batch = node.bodies[0] as Call[];
    expect(batch.map((call) => call.method)).toEqual(["isBlockhashValid", ...Array(4).fill("simulateTransaction")]);
    expect(batch[1]?.params).toEqual([toBase64(wireOf(1)), { encoding: "base64", sigVerify: false, commitment: "confirmed" }]);
    expect(new Set(batch.map((call) => call.id)).size).toBe(5);
  });

  it("sends a call made alone as a plain request, as before batching", async () => {
    const node = stubNode(simulated);
    expect(await createRpcLedger({ url: node.url }).simulateTransaction(wireOf(9))).toEqual({ ok: true, unitsConsumed: 9n, logs: ["tx 9"] });
    expect(Array.isArray(node.bodies[0])).toBe(false);
  });

  it("fails only the call the node refused or left out of the batch answer", async () => {
    const node = stubNode((call) => {
      const tag = fromBase64(call.params[0] as string)[0];
      if (tag === 2) return `"error":{"code":-32002,"message":"Transaction simulation failed: Blockhash not found","data":{"err":"BlockhashNotFound","logs":[]}}`;
      return tag === 3 ? null : simulated(call);
    });
    const ledger = createRpcLedger({ url: node.url });
    const [first, refused, missing] = await Promise.allSettled([1, 2, 3].map((tag) => ledger.simulateTransaction(wireOf(tag))));
    expect(node.bodies).toHaveLength(1);
    expect(first).toEqual({ status: "fulfilled", value: { ok: true, unitsConsumed: 1n, logs: ["tx 1"] } });
    // A node's "no" is a failed simulation (a refusal), not an outage.
    const refusal = refused?.status === "fulfilled" ? refused.value : null;
    expect(refusal?.ok === false && refusal.error).toContain("Blockhash not found");
    // No answer is never a value: that one call is unavailable.
    expect(missing?.status).toBe("rejected");
    const reason: unknown = missing?.status === "rejected" ? missing.reason : null;
    expect(reason).toBeInstanceOf(LedgerError);
    expect((reason as LedgerError).kind).toBe("unavailable");
  });

  it("resends each call alone to a node that refuses batches, and sends it no batch again", async () => {
    const node = stubNode(simulated, "refuse");
    const ledger = createRpcLedger({ url: node.url });
    const outcomes = await Promise.all([5, 6].map((tag) => ledger.simulateTransaction(wireOf(tag))));
    expect(outcomes.map((o) => o.ok && o.unitsConsumed)).toEqual([5n, 6n]);
    const later = await Promise.all([7, 8].map((tag) => ledger.simulateTransaction(wireOf(tag))));
    expect(later.map((o) => o.ok && o.unitsConsumed)).toEqual([7n, 8n]);
    expect(node.bodies.map((body) => Array.isArray(body))).toEqual([true, false, false, false, false]);
  });

  it("answers every call of a batch the node fails with a 5xx as unavailable, and resends none", async () => {
    let posts = 0;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (posts++, new Response("down", { status: 503 })) });
    stubs.push(server);
    const ledger = createRpcLedger({ url: `http://127.0.0.1:${server.port}` });
    const results = await Promise.allSettled([1, 2, 3].map((tag) => ledger.simulateTransaction(wireOf(tag))));
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect(((result as PromiseRejectedResult).reason as LedgerError).kind).toBe("unavailable");
    }
    expect(posts).toBe(1);
  });
});
