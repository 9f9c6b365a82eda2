// Real components: litesvm with the real SPL Token program and the JSON-RPC server on a real socket
// (Bun.serve on port 0). signatureSubscribe must behave as a real node's: one notice when the
// transaction lands (or at once when it already has), in Solana's shape, and then the subscription ends.
import { afterEach, describe, expect, it } from "bun:test";
import { createSolanaRpcSubscriptions, getBase58Decoder, type Signature } from "@solana/kit";
import { MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION, serveLedgerRpc, type EmbeddedLedger, type LedgerRpcServer, type SignatureNotice } from "../src/index.ts";
import { bunListener } from "./support/bun-listener.ts";
import { createTestLedger, fundWallets, landed, transferWire } from "./support/fixtures.ts";
import { connect } from "./support/pubsub-client.ts";

/** The fee payer's signature of wire bytes: the transaction's id. */
const idOf = (wire: Uint8Array) => getBase58Decoder().decode(wire.subarray(1, 65)) as Signature;
/** The slot the transaction landed in (the slot clock moves on with real time). */
const slotOf = (ledger: EmbeddedLedger, wire: Uint8Array) => ledger.getTransaction(idOf(wire))?.slot ?? -1n;

describe("subscribeSignature (in process)", () => {
  it("tells a listener once when its transaction lands, and at once (after returning) when it already has", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 4n, blockhash: ledger.latestBlockhash() });
    const notices: SignatureNotice[] = [];
    ledger.subscribeSignature(idOf(wire), (notice) => notices.push(notice));
    const unrelated: SignatureNotice[] = [];
    ledger.subscribeSignature(idOf(await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() })), (n) => unrelated.push(n));

    expect(landed(ledger, wire)).toBe(idOf(wire));
    expect(notices).toEqual([{ slot: slotOf(ledger, wire), err: null }]);
    expect(unrelated).toEqual([]);

    const late: SignatureNotice[] = [];
    ledger.subscribeSignature(idOf(wire), (notice) => late.push(notice));
    expect(late).toEqual([]); // not inside the subscribe call
    await Promise.resolve();
    expect(late).toEqual([{ slot: notices[0]?.slot ?? -1n, err: null }]);
  });

  it("a transaction that lands and fails on chain is told with its error; an unsubscribed listener hears nothing", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 10n);
    const failing = await transferWire({ wallets, amount: 11n, blockhash: ledger.latestBlockhash() });
    const cancelled = await transferWire({ wallets, amount: 2n, blockhash: ledger.latestBlockhash() });
    const notices: SignatureNotice[] = [];
    ledger.subscribeSignature(idOf(failing), (notice) => notices.push(notice));
    const stop = ledger.subscribeSignature(idOf(cancelled), (notice) => notices.push(notice));
    stop();

    expect(ledger.submit(failing, { skipPreflight: true }).ok).toBe(true);
    landed(ledger, cancelled);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
  });
});

describe("signatureSubscribe over the JSON-RPC server's WebSocket (real socket)", () => {
  let server: LedgerRpcServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  it("subscribe, one notification in the Solana shape when the send lands, then the subscription is gone", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 4n, blockhash: ledger.latestBlockhash() });
    const client = await connect(server.wsUrl);
    const subscribed = await client.call("signatureSubscribe", [idOf(wire), { commitment: "confirmed" }]);
    expect(typeof subscribed.result).toBe("number");

    landed(ledger, wire);
    const [, notification] = await client.until(2);
    expect(notification).toEqual({
      jsonrpc: "2.0",
      method: "signatureNotification",
      params: { result: { context: { slot: Number(slotOf(ledger, wire)) }, value: { err: null } }, subscription: subscribed.result },
    });
    // Ended with its notice, as on a real node.
    expect((await client.call("signatureUnsubscribe", [subscribed.result])).error?.code).toBe(-32602);
    client.close();
  });

  it("a signature that already landed is notified right after the subscription's answer; an unsubscribed one never", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const wallets = await fundWallets(ledger, 10n);
    const early = await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() });
    const never = await transferWire({ wallets, amount: 2n, blockhash: ledger.latestBlockhash() });
    landed(ledger, early);
    const client = await connect(server.wsUrl);

    const subscribed = await client.call("signatureSubscribe", [idOf(early), { commitment: "processed" }]);
    const [answer, notification] = await client.until(2);
    expect(answer?.id).toBe(1);
    expect(notification?.params).toEqual({ result: { context: { slot: Number(slotOf(ledger, early)) }, value: { err: null } }, subscription: subscribed.result });

    const other = await client.call("signatureSubscribe", [idOf(never), { commitment: "confirmed" }]);
    expect((await client.call("signatureUnsubscribe", [other.result])).result).toBe(true);
    landed(ledger, never);
    await Bun.sleep(50);
    expect(client.messages.filter((m) => m.method === "signatureNotification")).toHaveLength(1);
    client.close();
  });

  it("at finalized the notice waits for finality; bad params, receipt notices and too many subscriptions are refused", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 4n, blockhash: ledger.latestBlockhash() });
    const client = await connect(server.wsUrl);

    expect(typeof (await client.call("signatureSubscribe", [idOf(wire)])).result).toBe("number"); // default: finalized
    landed(ledger, wire);
    await Bun.sleep(100);
    expect(client.messages.filter((m) => m.method === "signatureNotification")).toHaveLength(0);

    expect((await client.call("signatureSubscribe", ["not-a-signature"])).error?.code).toBe(-32602);
    expect((await client.call("signatureSubscribe", [idOf(wire), { commitment: "recent-ish" }])).error?.code).toBe(-32602);
    expect((await client.call("signatureSubscribe", [idOf(wire), { enableReceivedNotification: true }])).error?.code).toBe(-32602);
    expect((await client.call("signatureUnsubscribe", [12345])).error?.code).toBe(-32602);

    const pending = idOf(await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() }));
    const before = client.messages.length;
    for (let i = 0; i < MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION; i++) {
      client.send(JSON.stringify({ jsonrpc: "2.0", id: `bulk-${i}`, method: "signatureSubscribe", params: [pending, { commitment: "confirmed" }] }));
    }
    const answers = (await client.until(before + MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION)).slice(before);
    // One (the finalized subscription above) is still open: the last of these is refused.
    expect(answers.filter((a) => typeof a.result === "number")).toHaveLength(MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION - 1);
    expect(answers.at(-1)?.error?.message).toContain("Too many signature subscriptions");
    client.close();
  });

  it("kit's createSolanaRpcSubscriptions client receives signatureNotifications (sendAndConfirmTransactionFactory's way of waiting)", async () => {
    const ledger = createTestLedger();
    server = serveLedgerRpc(ledger, { port: 0, listener: bunListener });
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 3n, blockhash: ledger.latestBlockhash() });
    const abort = new AbortController();
    const notifications = await createSolanaRpcSubscriptions(server.wsUrl).signatureNotifications(idOf(wire), { commitment: "confirmed" }).subscribe({ abortSignal: abort.signal });
    // The subscription is live once kit has its id: give the round trip a moment.
    await new Promise((resolve) => setTimeout(resolve, 100));
    landed(ledger, wire);
    for await (const notification of notifications) {
      expect(notification.value).toEqual({ err: null });
      expect(notification.context.slot).toBe(slotOf(ledger, wire));
      break;
    }
    abort.abort();
  });
});
