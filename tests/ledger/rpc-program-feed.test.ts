/**
 * programSubscribe over a node's WebSocket (src/infrastructure/ledger/rpc-program-feed.ts): against
 * the embedded ledger's pubsub on a real socket (stopped and restarted on the same port), and
 * against hand-written Bun WebSocket servers that misbehave the ways a node or a proxy can.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { silentLogger } from "../../src/application/ports/logger.ts";
import type { ProgramAccountChange } from "../../src/application/ports/program-account-feed.ts";
import { createLocalLedger, serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createRpcProgramFeed } from "../../src/infrastructure/ledger/rpc-program-feed.ts";
import { PROGRAM_ID, testAddress } from "../registry/support/registry-fixtures.ts";

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > ms) throw new Error("timed out");
    await Bun.sleep(5);
  }
}

function listener() {
  const changes: ProgramAccountChange[] = [];
  const statuses: string[] = [];
  const details: string[] = [];
  return {
    changes,
    statuses,
    details,
    handlers: {
      change: (change: ProgramAccountChange) => changes.push(change),
      status: (status: "live" | "lost", detail?: string) => {
        statuses.push(status);
        if (detail) details.push(detail);
      },
    },
  };
}

describe("program feed over the embedded ledger's WebSocket pubsub (real socket)", () => {
  test("live, then each write with its slot; the node going away is `lost`; back on the same port it subscribes again and is live", async () => {
    const ledger = createLocalLedger();
    let server = serveLocalLedgerRpc(ledger, { port: 0 });
    const port = Number(new URL(server.url).port);
    stops.push(() => server.stop());
    const feed = createRpcProgramFeed({ url: server.wsUrl, logger: silentLogger, reconnectMs: 50, maxReconnectMs: 200 });
    const heard = listener();
    const subscription = feed.subscribe(PROGRAM_ID, [{ memcmp: { offset: 0, bytes: new Uint8Array([7]) } }], heard.handlers);
    stops.push(() => subscription.close());
    await until(() => heard.statuses.includes("live"));

    ledger.setAccount(testAddress(9, 1), { lamports: 10n, owner: PROGRAM_ID, data: Uint8Array.from([7, 1, 2]) });
    ledger.setAccount(testAddress(9, 2), { lamports: 10n, owner: PROGRAM_ID, data: Uint8Array.from([8, 1, 2]) }); // filtered out
    await until(() => heard.changes.length === 1);
    expect(heard.changes[0]).toEqual({ address: testAddress(9, 1), owner: PROGRAM_ID, lamports: 10n, data: Uint8Array.from([7, 1, 2]), slot: ledger.getSlot() });

    await server.stop();
    await until(() => heard.statuses.includes("lost"));
    server = serveLocalLedgerRpc(ledger, { port });
    await until(() => heard.statuses.filter((s) => s === "live").length === 2);
    ledger.setAccount(testAddress(9, 3), { lamports: 10n, owner: PROGRAM_ID, data: Uint8Array.from([7, 3]) });
    await until(() => heard.changes.length === 2);
    expect(heard.changes[1]?.address).toBe(testAddress(9, 3));
  });

  test("closing the last subscription unsubscribes on the node and closes the connection", async () => {
    const ledger = createLocalLedger();
    const server = serveLocalLedgerRpc(ledger, { port: 0 });
    stops.push(() => server.stop());
    const feed = createRpcProgramFeed({ url: server.wsUrl, logger: silentLogger });
    const heard = listener();
    const subscription = feed.subscribe(PROGRAM_ID, [], heard.handlers);
    await until(() => heard.statuses.includes("live"));
    subscription.close();
    await Bun.sleep(50);
    ledger.setAccount(testAddress(9, 1), { lamports: 10n, owner: PROGRAM_ID, data: Uint8Array.from([1]) });
    await Bun.sleep(50);
    expect(heard.changes).toEqual([]);
    expect(heard.statuses).toEqual(["live"]);
  });
});

/** A WebSocket server that answers each message with whatever `reply` says (or nothing). */
function fakeNode(reply: (message: { id: number; method: string }, send: (body: unknown) => void) => void) {
  const server = Bun.serve<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, bun) => (bun.upgrade(request, { data: undefined }) ? undefined : new Response("no", { status: 400 })),
    websocket: {
      message(socket, text) {
        reply(JSON.parse(String(text)) as { id: number; method: string }, (body) => socket.send(typeof body === "string" ? body : JSON.stringify(body)));
      },
    },
  });
  stops.push(() => server.stop(true));
  return `ws://127.0.0.1:${server.port}/?api-key=SECRET123`;
}

describe("program feed against misbehaving nodes (hand-written Bun WebSocket servers)", () => {
  test("malformed notices (bad address, owner, data, slot) and unknown subscriptions are dropped, never passed on", async () => {
    const notice = (value: unknown, slot: unknown = 5, subscription = 42) => ({ jsonrpc: "2.0", method: "programNotification", params: { result: { context: { slot }, value }, subscription } });
    const good = { pubkey: testAddress(9, 1), account: { owner: PROGRAM_ID, lamports: 1, data: ["AQI=", "base64"], executable: false, rentEpoch: 0, space: 2 } };
    const url = fakeNode((message, send) => {
      send({ jsonrpc: "2.0", result: 42, id: message.id });
      send("not json");
      send(notice({ ...good, pubkey: "a\nb" }));
      send(notice({ ...good, account: { ...good.account, owner: 7 } }));
      send(notice({ ...good, account: { ...good.account, data: ["AQI=", "base58"] } }));
      send(notice(good, -1));
      send(notice(good, 5, 43));
      send(notice(good));
    });
    const heard = listener();
    const subscription = createRpcProgramFeed({ url, logger: silentLogger }).subscribe(PROGRAM_ID, [], heard.handlers);
    stops.push(() => subscription.close());
    await until(() => heard.changes.length === 1);
    await Bun.sleep(50);
    expect(heard.changes).toEqual([{ address: testAddress(9, 1), owner: PROGRAM_ID as Address, lamports: 1n, data: Uint8Array.from([1, 2]), slot: 5n }]);
  });

  test("a node that never answers programSubscribe is `lost` after the answer timeout, and tried again", async () => {
    let subscribes = 0;
    const url = fakeNode(() => void subscribes++);
    const heard = listener();
    const subscription = createRpcProgramFeed({ url, logger: silentLogger, answerTimeoutMs: 100, reconnectMs: 50 }).subscribe(PROGRAM_ID, [], heard.handlers);
    stops.push(() => subscription.close());
    await until(() => subscribes >= 2);
    expect(heard.statuses.slice(0, 1)).toEqual(["lost"]);
    expect(heard.details.every((d) => !d.includes("SECRET123"))).toBe(true);
  });

  test("a refused subscription is `lost` with the node's reason, without the URL's secret", async () => {
    const url = fakeNode((message, send) => send({ jsonrpc: "2.0", error: { code: -32601, message: `Method not found at ws://127.0.0.1/?api-key=SECRET123` }, id: message.id }));
    const heard = listener();
    const subscription = createRpcProgramFeed({ url, logger: silentLogger }).subscribe(PROGRAM_ID, [], heard.handlers);
    stops.push(() => subscription.close());
    await until(() => heard.statuses.includes("lost"));
    expect(heard.details[0]).toContain("programSubscribe refused");
    expect(heard.details.join()).not.toContain("SECRET123");
  });

  test("nothing listening at the URL: `lost`, then reconnect attempts with backoff", async () => {
    const heard = listener();
    const subscription = createRpcProgramFeed({ url: "ws://127.0.0.1:1/?api-key=SECRET123", logger: silentLogger, reconnectMs: 20, maxReconnectMs: 40 }).subscribe(PROGRAM_ID, [], heard.handlers);
    stops.push(() => subscription.close());
    await until(() => heard.statuses.length >= 3);
    expect(new Set(heard.statuses)).toEqual(new Set(["lost"]));
    expect(heard.details.join()).not.toContain("SECRET123");
  });
});
