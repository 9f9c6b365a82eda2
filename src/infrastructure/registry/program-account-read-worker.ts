/**
 * Runs in a Worker (rpc-program-account-reader.ts): one JSON-RPC getProgramAccounts per message,
 * so the response (about 90 MB of JSON at 100,000 agents) is parsed and its base64 decoded off the
 * service's event loop. The reply is compact: addresses and owners joined by newlines (base58
 * has none) and every account's bytes in one transferred buffer.
 */
import { Buffer } from "node:buffer";

export type ReadRequest = Readonly<{
  id: number;
  url: string;
  program: string;
  /** JSON-RPC filters as sent (memcmp bytes already base64). */
  filters: readonly unknown[];
  /** For the whole call, download included (a large registry is a large answer). */
  timeoutMs: number;
  /** For the node to start answering (the response's headers): a stalled node fails fast. */
  answerTimeoutMs: number;
}>;

export type ReadReply =
  /** `owners` is "" when every account is owned by the program read (a node's usual answer). */
  | Readonly<{ id: number; ok: true; addresses: string; owners: string; data: ArrayBuffer; ends: Int32Array }>
  | Readonly<{ id: number; ok: false; message: string }>;

type Item = { pubkey?: unknown; account?: { owner?: unknown; data?: unknown } };

/** SECURITY: addresses travel joined by newlines; a node's answer must not be able to shift them. */
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

const port = globalThis as unknown as Worker;

port.onmessage = async (event: MessageEvent<ReadRequest>) => {
  const request = event.data;
  try {
    const reply = pack(request.id, request.program, await fetchAccounts(request));
    port.postMessage(reply, reply.ok ? [reply.data, reply.ends.buffer] : []);
  } catch (error) {
    port.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies ReadReply);
  }
};

async function fetchAccounts(request: ReadRequest): Promise<Item[]> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: request.id,
    method: "getProgramAccounts",
    params: [request.program, { encoding: "base64", commitment: "confirmed", filters: request.filters }],
  });
  const controller = new AbortController();
  const abortAfter = (ms: number, what: string) => setTimeout(() => controller.abort(new Error(`getProgramAccounts: ${what} within ${ms} ms`)), ms);
  const whole = abortAfter(request.timeoutMs, "no complete answer");
  const firstByte = abortAfter(request.answerTimeoutMs, "no answer");
  let reply: { result?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    const response = await fetch(request.url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: controller.signal });
    clearTimeout(firstByte);
    if (!response.ok) throw new Error(`getProgramAccounts: HTTP ${response.status}`);
    reply = (await response.json()) as typeof reply;
  } catch (error) {
    throw controller.signal.aborted && controller.signal.reason instanceof Error ? controller.signal.reason : error;
  } finally {
    clearTimeout(whole);
    clearTimeout(firstByte);
  }
  if (reply.error) throw new Error(`getProgramAccounts: JSON-RPC error ${String(reply.error.code)}: ${String(reply.error.message)}`);
  if (!Array.isArray(reply.result)) throw new Error("getProgramAccounts: the node answered without a result list");
  return reply.result as Item[];
}

function pack(id: number, program: string, items: readonly Item[]): ReadReply {
  const texts: string[] = [];
  let bytes = 0;
  for (const item of items) {
    const data = item.account?.data;
    const text = Array.isArray(data) && typeof data[0] === "string" && data[1] === "base64" ? data[0] : null;
    const { pubkey } = item;
    const owner = item.account?.owner;
    if (typeof pubkey !== "string" || !BASE58_ADDRESS.test(pubkey) || typeof owner !== "string" || !BASE58_ADDRESS.test(owner) || text === null) {
      throw new Error("getProgramAccounts: an account in the answer is not {pubkey, account: {owner, data: [base64, 'base64']}}");
    }
    texts.push(text);
    bytes += Math.floor((text.length * 3) / 4);
  }
  // One buffer for every account (transferred, not copied); `ends[i]` is where account i stops.
  const data = new ArrayBuffer(bytes);
  const writer = Buffer.from(data);
  const ends = new Int32Array(items.length);
  let offset = 0;
  texts.forEach((text, i) => {
    offset += writer.write(text, offset, "base64");
    ends[i] = offset;
  });
  return {
    id,
    ok: true,
    addresses: items.map((item) => item.pubkey as string).join("\n"),
    owners: items.every((item) => item.account?.owner === program) ? "" : items.map((item) => item.account?.owner as string).join("\n"),
    data,
    ends,
  };
}
