/**
 * A small HTTP endpoint in front of the embedded ledger's real JSON-RPC handler, so tests and
 * the benchmark can count calls and inject faults (5xx, timeouts, lost answers, an RPC that is
 * down) exactly where they want them. It forwards by calling the handler in-process: the ledger
 * it fronts is the test's own object, so balances can be read directly.
 */
import { getBase58Decoder } from "@solana/kit";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { createLedgerRpcHandler } from "@x84/embedded-ledger";

export type RpcCall = Readonly<{ method: string; params: readonly unknown[]; id: unknown }>;

/** Decides what one call gets. `forward` passes it to the real ledger and returns its answer. */
export type FaultRule = (call: RpcCall, forward: () => Promise<Response>) => Promise<Response>;

export type LedgerProxy = Readonly<{
  url: string;
  port: number;
  /** Calls that reached the proxy, by method. */
  received(method: string): number;
  /** Calls the proxy passed on to the ledger, by method. */
  forwarded(method: string): number;
  /** Fee-payer signatures of every sendTransaction forwarded to the ledger, in order. */
  sentSignatures(): readonly string[];
  /** Replaces the fault rule; `null` restores plain forwarding. */
  setRule(rule: FaultRule | null): void;
  /** Closes the port: every call now fails with connection refused (open ones are cut). */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeUp(): void;
  stop(): Promise<void>;
}>;

const passThrough: FaultRule = (_call, forward) => forward();

export function startLedgerProxy(ledger: LocalLedger, options: Readonly<{ rule?: FaultRule }> = {}): LedgerProxy {
  const handler = createLedgerRpcHandler(ledger);
  const received = new Map<string, number>();
  const forwarded = new Map<string, number>();
  const signatures: string[] = [];
  let rule: FaultRule = options.rule ?? passThrough;

  async function fetch(request: Request): Promise<Response> {
    const text = await request.text();
    const call = parseCall(text);
    if (!call) return handler(new Request(request.url, { method: "POST", body: text, headers: { "content-type": "application/json" } }));
    bump(received, call.method);
    const forward = async () => {
      bump(forwarded, call.method);
      if (call.method === "sendTransaction") signatures.push(firstSignature(call.params[0]));
      return handler(new Request(request.url, { method: "POST", body: text, headers: { "content-type": "application/json" } }));
    };
    return rule(call, forward);
  }

  let server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  const port = server.port ?? 0;
  let up = true;

  async function goDown(): Promise<void> {
    if (!up) return;
    up = false;
    await server.stop(true);
  }

  return Object.freeze({
    url: `http://127.0.0.1:${port}`,
    port,
    received: (method: string) => received.get(method) ?? 0,
    forwarded: (method: string) => forwarded.get(method) ?? 0,
    sentSignatures: () => [...signatures],
    setRule(next: FaultRule | null) {
      rule = next ?? passThrough;
    },
    goDown,
    comeUp() {
      if (up) return;
      server = Bun.serve({ hostname: "127.0.0.1", port, fetch });
      up = true;
    },
    stop: goDown,
  });
}

/** A JSON-RPC success answer, as a node would send it. */
export function rpcResult(call: RpcCall, result: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id: call.id, result });
}

/** `getSignatureStatuses` answered as "not found" for every signature asked. */
export function statusesNotFound(call: RpcCall, slot = 1): Response {
  const asked = Array.isArray(call.params[0]) ? call.params[0].length : 1;
  return rpcResult(call, { context: { slot }, value: Array.from({ length: asked }, () => null) });
}

/** A plain HTTP 5xx, as a load balancer in front of a sick node answers. */
export function httpError(status = 503): Response {
  return new Response("upstream unavailable", { status });
}

/** Waits `ms`, then runs `then` (a delayed answer: long enough and the client times out). */
export async function delayed(ms: number, then: () => Promise<Response>): Promise<Response> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return then();
}

function bump(counts: Map<string, number>, method: string): void {
  counts.set(method, (counts.get(method) ?? 0) + 1);
}

function parseCall(text: string): RpcCall | null {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
    const record = body as Record<string, unknown>;
    if (typeof record["method"] !== "string") return null;
    const params = Array.isArray(record["params"]) ? (record["params"] as unknown[]) : [];
    return { method: record["method"], params, id: record["id"] };
  } catch {
    return null;
  }
}

/** The first signature of base64 wire bytes (one-byte compact count: fewer than 128 signers). */
export function firstSignature(param: unknown): string {
  if (typeof param !== "string") return "";
  const bytes = Uint8Array.from(atob(param), (c) => c.charCodeAt(0));
  return getBase58Decoder().decode(bytes.subarray(1, 65));
}
