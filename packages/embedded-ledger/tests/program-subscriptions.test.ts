// Real components: litesvm with the real SPL Token program, the JSON-RPC server on a real socket
// (Bun.serve on port 0), and kit's own subscriptions client. programSubscribe must behave as a
// real node's: a notice per write of a matching account, none for accounts that leave the program.
import { afterEach, describe, expect, it } from "bun:test";
import { createSolanaRpcSubscriptions, generateKeyPairSigner, getAddressEncoder, type Address } from "@solana/kit";
import { getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { MAX_SUBSCRIPTIONS_PER_CONNECTION, serveLedgerRpc, type LedgerRpcServer, type ProgramAccountNotice } from "../src/index.ts";
import { bunListener } from "./support/bun-listener.ts";
import { createTestLedger, fundWallets, landed, transferWire } from "./support/fixtures.ts";
import { connect } from "./support/pubsub-client.ts";

const newAddress = async () => (await generateKeyPairSigner()).address;
const tagged = (tag: number) => ({ memcmp: { offset: 0, bytes: new Uint8Array([tag]) } });

describe("subscribeProgramAccounts (in process)", () => {
  it("notices every write of a matching account with its slot; other programs, other filters, closures and reassignments are not noticed", async () => {
    const ledger = createTestLedger();
    const [program, other, a, b, c] = await Promise.all([newAddress(), newAddress(), newAddress(), newAddress(), newAddress()]);
    const notices: ProgramAccountNotice[] = [];
    const stop = ledger.subscribeProgramAccounts(program, [tagged(7)], (notice) => notices.push(notice));

    ledger.setAccount(a, { lamports: 1_000n, data: new Uint8Array([7, 1]), owner: program });
    ledger.setAccount(a, { lamports: 1_000n, data: new Uint8Array([7, 1]), owner: program }); // unchanged: still a write
    ledger.setAccount(b, { lamports: 1_000n, data: new Uint8Array([8, 1]), owner: program }); // filter does not match
    ledger.setAccount(c, { lamports: 1_000n, data: new Uint8Array([7, 2]), owner: other }); // another program
    expect(notices.map((n) => [n.address, n.owner, n.lamports, [...n.data]])).toEqual([
      [a, program, 1_000n, [7, 1]],
      [a, program, 1_000n, [7, 1]],
    ]);
    expect(notices[0]?.slot).toBe(ledger.getSlot());

    ledger.setAccount(a, { lamports: 0n }); // closed
    ledger.setAccount(c, { owner: program, data: new Uint8Array([7, 3]) }); // moves in: noticed
    ledger.setAccount(c, { owner: other }); // moves out: not noticed
    expect(notices.map((n) => [n.address, [...n.data]])).toEqual([
      [a, [7, 1]],
      [a, [7, 1]],
      [c, [7, 3]],
    ]);

    stop();
    ledger.setAccount(a, { lamports: 5n, data: new Uint8Array([7, 9]), owner: program });
    expect(notices.length).toBe(3);
  });

  it("notices the accounts a landed transaction changed (token balances after a transfer)", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 10n);
    const recipient = new Uint8Array(getAddressEncoder().encode(wallets.recipient.address));
    const amounts: bigint[] = [];
    ledger.subscribeProgramAccounts(TOKEN_PROGRAM_ADDRESS, [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: recipient } }], (notice) =>
      amounts.push(getTokenDecoder().decode(notice.data).amount),
    );
    landed(ledger, await transferWire({ wallets, amount: 4n, blockhash: ledger.latestBlockhash() }));
    expect(amounts).toEqual([4n]);
  });

  it("a subscriber that throws does not fail the write, and the others still get their notice", async () => {
    const ledger = createTestLedger();
    const [program, a] = await Promise.all([newAddress(), newAddress()]);
    let seen = 0;
    ledger.subscribeProgramAccounts(program, [], () => {
      throw new Error("subscriber broke");
    });
    ledger.subscribeProgramAccounts(program, [], () => seen++);
    ledger.setAccount(a, { lamports: 1n, data: new Uint8Array([1]), owner: program });
    expect(seen).toBe(1);
    expect(ledger.readAccount(a)?.data).toEqual(new Uint8Array([1]));
  });
});

describe("programSubscribe over the JSON-RPC server's WebSocket (real socket)", () => {
  let server: LedgerRpcServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  it("subscribe, notification in the Solana shape (base64), unsubscribe", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    expect(server.wsUrl).toBe(server.url.replace("http://", "ws://"));
    const [program, a] = await Promise.all([newAddress(), newAddress()]);
    const client = await connect(server.wsUrl);
    const subscribed = await client.call("programSubscribe", [program, { encoding: "base64", commitment: "confirmed", filters: [{ memcmp: { offset: 0, bytes: "Bw==", encoding: "base64" } }, { dataSize: 3 }] }]);
    expect(typeof subscribed.result).toBe("number");

    ledger.setAccount(a, { lamports: 2_000n, data: new Uint8Array([7, 1, 2]), owner: program });
    ledger.setAccount(a, { lamports: 2_000n, data: new Uint8Array([7, 1]), owner: program }); // dataSize 2: filtered out
    const [, notification] = await client.until(2);
    expect(notification).toEqual({
      jsonrpc: "2.0",
      method: "programNotification",
      params: {
        result: {
          context: { slot: Number(ledger.getSlot()) },
          value: { pubkey: a, account: { data: ["BwEC", "base64"], executable: false, lamports: 2_000, owner: program, rentEpoch: 0, space: 3 } },
        },
        subscription: subscribed.result,
      },
    });

    expect((await client.call("programUnsubscribe", [subscribed.result])).result).toBe(true);
    ledger.setAccount(a, { lamports: 2_000n, data: new Uint8Array([7, 1, 3]), owner: program });
    expect((await client.call("programUnsubscribe", [subscribed.result])).error).toEqual({ code: -32602, message: "Invalid subscription id." });
    expect(client.messages.filter((m) => m.method === "programNotification").length).toBe(1);
    client.close();
  });

  it("bad requests get JSON-RPC errors and the connection stays usable; subscriptions per connection are capped", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const program = await newAddress();
    const client = await connect(server.wsUrl);
    client.send("{not json");
    expect((await client.until(1))[0]?.error?.code).toBe(-32700);
    expect((await client.call("accountSubscribe", [program])).error?.code).toBe(-32601);
    expect((await client.call("programSubscribe", ["not-an-address"])).error?.code).toBe(-32602);
    expect((await client.call("programSubscribe", [program, { encoding: "base64+zstd" }])).error?.code).toBe(-32602);
    expect((await client.call("programSubscribe", [program, { commitment: "recent-ish" }])).error?.code).toBe(-32602);
    expect((await client.call("programSubscribe", [program, { filters: [{ memcmp: { offset: 0, bytes: "%%%" } }] }])).error?.code).toBe(-32602);
    expect((await client.call("programSubscribe", [program, { filters: Array.from({ length: 5 }, () => ({ dataSize: 1 })) }])).error?.code).toBe(-32602);
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) expect(typeof (await client.call("programSubscribe", [program])).result).toBe("number");
    expect((await client.call("programSubscribe", [program])).error?.message).toContain("Too many subscriptions");
    client.close();
  });

  it("a closed connection's subscriptions end; other connections keep theirs", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const [program, a] = await Promise.all([newAddress(), newAddress()]);
    const leaving = await connect(server.wsUrl);
    const staying = await connect(server.wsUrl);
    await leaving.call("programSubscribe", [program]);
    await staying.call("programSubscribe", [program]);
    leaving.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    ledger.setAccount(a, { lamports: 1n, data: new Uint8Array([1]), owner: program });
    expect((await staying.until(2))[1]?.method).toBe("programNotification");
    expect(leaving.messages.length).toBe(1);
    staying.close();
  });

  it("kit's createSolanaRpcSubscriptions client receives programNotifications", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const [program, a] = await Promise.all([newAddress(), newAddress()]);
    const subscriptions = createSolanaRpcSubscriptions(server.wsUrl);
    const abort = new AbortController();
    const notifications = await subscriptions
      .programNotifications(program as Address, { encoding: "base64", commitment: "confirmed", filters: [{ dataSize: 2n }] })
      .subscribe({ abortSignal: abort.signal });
    // The subscription is live once kit has its id: give the round trip a moment.
    await new Promise((resolve) => setTimeout(resolve, 100));
    ledger.setAccount(a, { lamports: 9n, data: new Uint8Array([4, 2]), owner: program });
    for await (const notification of notifications) {
      expect(notification.value.pubkey).toBe(a);
      expect(notification.value.account.lamports).toBe(9n as never);
      expect(notification.value.account.data).toEqual(["BAI=", "base64"] as never);
      expect(notification.context.slot).toBe(ledger.getSlot());
      break;
    }
    abort.abort();
  });
});
