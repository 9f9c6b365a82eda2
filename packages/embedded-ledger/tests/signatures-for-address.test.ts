// getSignaturesForAddress over the embedded ledger's own history (real SPL Token transfers in
// litesvm, the JSON-RPC handler called with Request objects): what a registry asks a node for to
// find a feedback entry's creating transaction, and what kit's client sends.
import { beforeEach, describe, expect, it } from "bun:test";
import type { Signature } from "@solana/kit";
import { createLedgerRpcHandler, type EmbeddedLedger, type LedgerRpcHandler } from "../src/index.ts";
import { createTestLedger, fundWallets, landed, manualClock, transferWire, type ManualClock, type Wallets } from "./support/fixtures.ts";

type Entry = { signature: string; slot: number; err: unknown; memo: null; blockTime: number; confirmationStatus: string };
type Reply = { result?: Entry[]; error?: { code: number; message: string } };

let ledger: EmbeddedLedger;
let handler: LedgerRpcHandler;
let clock: ManualClock;
let wallets: Wallets;
let sent: Signature[];

async function call(params: unknown[]): Promise<Reply> {
  const response = await handler(new Request("http://ledger.test/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSignaturesForAddress", params }) }));
  return (await response.json()) as Reply;
}

const signaturesOf = (reply: Reply) => (reply.result ?? []).map((e) => e.signature);

beforeEach(async () => {
  clock = manualClock();
  ledger = createTestLedger({ clock });
  handler = createLedgerRpcHandler(ledger);
  wallets = await fundWallets(ledger, 10_000_000n);
  sent = [];
  for (let amount = 1n; amount <= 3n; amount++) {
    sent.push(landed(ledger, await transferWire({ wallets, amount, blockhash: ledger.latestBlockhash() })));
    clock.advance(400);
  }
});

describe("getSignaturesForAddress (embedded ledger history)", () => {
  it("answers every landed transaction naming the address, newest first, with slot, blockTime, err and status", async () => {
    const reply = await call([wallets.destination]);
    expect(signaturesOf(reply)).toEqual([...sent].reverse());
    const [newest] = reply.result!;
    expect(newest).toMatchObject({ err: null, memo: null, confirmationStatus: "confirmed" });
    expect(newest!.slot).toBe(Number(ledger.getTransaction(sent[2]!)!.slot));
    expect(newest!.blockTime).toBe(Number(ledger.getTransaction(sent[2]!)!.blockTime));
    // The fee payer is named by its airdrop and the three transfers.
    expect(signaturesOf(await call([wallets.feePayer.address])).slice(0, 3)).toEqual([...sent].reverse());
    // The payer signed the transfers (a static account key); an address no transaction named
    // (a cheat-coded account) has no history.
    expect(signaturesOf(await call([wallets.payer.address]))).toEqual([...sent].reverse());
    expect(signaturesOf(await call(["11111111111111111111111111111112"]))).toEqual([]);
  });

  it("pages with limit and before, and stops at until, as a node does", async () => {
    const destination = wallets.destination;
    const [first, second, third] = sent as [Signature, Signature, Signature];
    expect(signaturesOf(await call([destination, { limit: 2 }]))).toEqual([third, second]);
    expect(signaturesOf(await call([destination, { limit: 2, before: second }]))).toEqual([first]);
    expect(signaturesOf(await call([destination, { until: first }]))).toEqual([third, second]);
    expect(signaturesOf(await call([destination, { before: "1".repeat(64), commitment: "confirmed" }]))).toEqual([]);
  });

  it("reports a failed transaction with its error, and finalized once 32 slots passed", async () => {
    // More than the source holds: the transfer lands (its fee is charged) and fails.
    const failed = ledger.submit(await transferWire({ wallets, amount: 999_000_000n, blockhash: ledger.latestBlockhash() }), { skipPreflight: true });
    expect(failed.ok).toBe(true);
    clock.advance(40 * 400);
    const [newest, ...older] = (await call([wallets.destination])).result!;
    expect(newest!.err).not.toBeNull();
    expect(newest!.confirmationStatus).toBe("finalized");
    expect(older.every((e) => e.err === null)).toBe(true);
  });

  it("refuses a bad address, limit or signature with -32602", async () => {
    expect((await call(["nope"])).error?.code).toBe(-32602);
    expect((await call([wallets.destination, { limit: 0 }])).error?.code).toBe(-32602);
    expect((await call([wallets.destination, { limit: 1001 }])).error?.code).toBe(-32602);
    expect((await call([wallets.destination, { before: "not-a-signature" }])).error?.code).toBe(-32602);
  });

  it("forgets the oldest entries with the history they belong to", async () => {
    const small = createTestLedger({ clock, historyCapacity: 3 });
    const w = await fundWallets(small, 10_000_000n);
    const signatures: Signature[] = [];
    for (let amount = 1n; amount <= 3n; amount++) signatures.push(landed(small, await transferWire({ wallets: w, amount, blockhash: small.latestBlockhash() })));
    // The airdrop to the fee payer is the first of the four transactions, so it went first.
    expect(small.signaturesForAddress(w.feePayer.address, { limit: 10 }).map((e) => e.signature)).toEqual([...signatures].reverse());
  });
});
