// Real components: the embedded litesvm ledger behind the JSON-RPC handler, called with
// web Request objects (no sockets).
import { beforeEach, describe, expect, it } from "bun:test";
import {
  generateKeyPairSigner,
  getBase58Decoder,
  getTransactionDecoder,
  type Address,
} from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { EmbeddedLedger } from "../src/index.ts";
import { createLedgerRpcHandler, type LedgerRpcHandler } from "../src/index.ts";
import { createTestLedger, fundWallets, GENESIS_HASH, manualClock, transferWire, USDC, type ManualClock } from "./support/fixtures.ts";

type RpcReply = { jsonrpc: string; id: unknown; result?: any; error?: { code: number; message: string; data?: any } };

function post(body: string): Request {
  return new Request("http://ledger.test/", { method: "POST", headers: { "content-type": "application/json" }, body });
}

let ledger: EmbeddedLedger;
let handler: LedgerRpcHandler;
let clock: ManualClock;

async function raw(body: unknown): Promise<Response> {
  return handler(post(typeof body === "string" ? body : JSON.stringify(body)));
}

async function rpc(method: string, params: unknown[] = []): Promise<RpcReply> {
  const response = await raw({ jsonrpc: "2.0", id: 1, method, params });
  expect(response.status).toBe(200);
  return (await response.json()) as RpcReply;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

beforeEach(() => {
  clock = manualClock();
  ledger = createTestLedger({ clock });
  handler = createLedgerRpcHandler(ledger);
});

describe("ledger JSON-RPC handler: protocol errors (embedded ledger, no sockets)", () => {
  it("answers malformed JSON with -32700 and HTTP 200", async () => {
    const response = await raw("{not json");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  });

  it("answers invalid requests, unknown methods and bad params with their codes", async () => {
    expect(((await (await raw(42)).json()) as RpcReply).error?.code).toBe(-32600);
    expect(((await (await raw({ id: 3, method: "getSlot" })).json()) as RpcReply).error?.code).toBe(-32600);
    expect((await rpc("eth_call")).error?.code).toBe(-32601);
    expect((await rpc("constructor")).error?.code).toBe(-32601);
    expect((await rpc("getBalance", ["not-an-address"])).error?.code).toBe(-32602);
    expect((await rpc("getSignatureStatuses", ["nope"])).error?.code).toBe(-32602);
    expect((await rpc("requestAirdrop", [USDC, -5])).error?.code).toBe(-32602);
    const objectParams = (await (await raw({ jsonrpc: "2.0", id: 9, method: "getBalance", params: { a: 1 } })).json()) as RpcReply;
    expect(objectParams).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it("runs batches in order, drops notifications, refuses an empty batch", async () => {
    const batch = (await (await raw([
      { jsonrpc: "2.0", id: "a", method: "getHealth" },
      { jsonrpc: "2.0", method: "getSlot" },
      { jsonrpc: "2.0", id: "b", method: "nope" },
      { jsonrpc: "2.0", id: "c", method: "getGenesisHash" },
    ])).json()) as RpcReply[];
    expect(batch.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(batch[0]?.result).toBe("ok");
    expect(batch[1]?.error?.code).toBe(-32601);
    expect(batch[2]?.result).toBe(GENESIS_HASH);
    expect(((await (await raw([])).json()) as RpcReply).error?.code).toBe(-32600);
    expect((await raw({ jsonrpc: "2.0", method: "getSlot" })).status).toBe(204);
  });

  it("refuses oversized bodies and other HTTP methods without a 500", async () => {
    const huge = await raw(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot", params: ["x".repeat(1_100_000)] }));
    expect(huge.status).toBe(413);
    expect((await handler(new Request("http://ledger.test/", { method: "PUT" }))).status).toBe(405);
    const health = await handler(new Request("http://ledger.test/health"));
    expect(await health.text()).toBe("ok");
  });

  it("writes u64 values as exact JSON numbers", async () => {
    const who = (await generateKeyPairSigner()).address;
    ledger.setAccount(who, { lamports: (1n << 60n) + 1n });
    const text = await (await raw({ jsonrpc: "2.0", id: 1, method: "getBalance", params: [who] })).text();
    expect(text).toContain(`"value":${(1n << 60n) + 1n}`);
  });
});

describe("ledger JSON-RPC handler: cluster and account methods (embedded ledger)", () => {
  it("reports devnet identity, version, epoch info, blockhash validity and rent", async () => {
    expect((await rpc("getGenesisHash")).result).toBe(GENESIS_HASH);
    expect((await rpc("getVersion")).result["solana-core"]).toMatch(/^\d+\.\d+\.\d+$/);
    const latest = (await rpc("getLatestBlockhash")).result;
    expect(latest.context.slot).toBe((await rpc("getSlot")).result);
    expect(latest.value.lastValidBlockHeight).toBe((await rpc("getBlockHeight")).result + 150);
    expect((await rpc("isBlockhashValid", [latest.value.blockhash])).result.value).toBe(true);
    clock.advance(151 * 400);
    expect((await rpc("isBlockhashValid", [latest.value.blockhash])).result.value).toBe(false);
    expect((await rpc("getEpochInfo")).result).toMatchObject({ slotsInEpoch: 432000 });
    expect((await rpc("getMinimumBalanceForRentExemption", [165])).result).toBe(Number(ledger.getMinimumBalanceForRentExemption(165n)));
  });

  it("surfnet_setAccount takes hex data and getAccountInfo returns it in base64, base58 and sliced", async () => {
    const target = (await generateKeyPairSigner()).address;
    const owner = (await generateKeyPairSigner()).address;
    const set = await rpc("surfnet_setAccount", [target, { lamports: 1_000_000, data: "deadbeef01", owner, executable: false, rentEpoch: 0 }]);
    expect(set.result).toEqual({ context: { slot: expect.any(Number), apiVersion: expect.any(String) }, value: null });
    const info = (await rpc("getAccountInfo", [target, { encoding: "base64" }])).result.value;
    expect(info).toEqual({ data: [b64(new Uint8Array([0xde, 0xad, 0xbe, 0xef, 1])), "base64"], executable: false, lamports: 1_000_000, owner, rentEpoch: 0, space: 5 });
    const base58 = (await rpc("getAccountInfo", [target, { encoding: "base58" }])).result.value.data;
    expect(base58).toEqual([getBase58Decoder().decode(new Uint8Array([0xde, 0xad, 0xbe, 0xef, 1])), "base58"]);
    const sliced = (await rpc("getAccountInfo", [target, { encoding: "base64", dataSlice: { offset: 1, length: 2 } }])).result.value.data;
    expect(sliced).toEqual([b64(new Uint8Array([0xad, 0xbe])), "base64"]);
    expect((await rpc("surfnet_setAccount", [target, { data: "xyz" }])).error?.code).toBe(-32602);
    const missing = await rpc("getMultipleAccounts", [[target, (await generateKeyPairSigner()).address]]);
    expect(missing.result.value[1]).toBeNull();
  });

  it("surfnet_setTokenAccount funds an ATA that getTokenAccountBalance and getProgramAccounts see", async () => {
    const owner = (await generateKeyPairSigner()).address;
    const delegate = (await generateKeyPairSigner()).address;
    const set = await rpc("surfnet_setTokenAccount", [owner, USDC, { amount: 1_500_000, delegate, delegatedAmount: 5, state: "initialized" }, TOKEN_PROGRAM_ADDRESS]);
    expect(set.result.value).toBeNull();
    const [ata] = await ledger.getProgramAccounts(TOKEN_PROGRAM_ADDRESS, [{ dataSize: 165 }]);
    const balance = (await rpc("getTokenAccountBalance", [ata?.address])).result.value;
    expect(balance).toEqual({ amount: "1500000", decimals: 6, uiAmount: 1.5, uiAmountString: "1.5" });
    await rpc("surfnet_setTokenAccount", [owner, USDC, { delegate: "null" }]);
    expect(ledger.readAccount(ata?.address as Address)?.data[72]).toBe(0); // delegate COption tag cleared

    const ownerBytes = getBase58Decoder().decode(ledger.readAccount(ata?.address as Address)?.data.subarray(32, 64) ?? new Uint8Array());
    const byOwner58 = (await rpc("getProgramAccounts", [TOKEN_PROGRAM_ADDRESS, { encoding: "base64", filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: ownerBytes } }] }])).result;
    expect(byOwner58.map((a: { pubkey: string }) => a.pubkey)).toEqual([ata?.address]);
    const mintB64 = b64(ledger.readAccount(ata?.address as Address)?.data.subarray(0, 32) ?? new Uint8Array());
    const byMint64 = (await rpc("getProgramAccounts", [TOKEN_PROGRAM_ADDRESS, { encoding: "base64", withContext: true, dataSlice: { offset: 64, length: 8 }, filters: [{ memcmp: { offset: 0, bytes: mintB64, encoding: "base64" } }] }])).result;
    expect(byMint64.context.slot).toBeGreaterThan(0);
    expect(byMint64.value[0].account.data[0]).toBe(b64(new Uint8Array([0x60, 0xe3, 0x16, 0, 0, 0, 0, 0])));
    expect((await rpc("getTokenAccountBalance", [owner])).error?.code).toBe(-32602);
    expect((await rpc("surfnet_setTokenAccount", [owner, USDC, { state: "melted" }])).error?.code).toBe(-32602);
  });

  it("requestAirdrop funds a wallet with a confirmed signature", async () => {
    const who = (await generateKeyPairSigner()).address;
    const signature = (await rpc("requestAirdrop", [who, 1_000_000_000])).result;
    const status = (await rpc("getSignatureStatuses", [[signature], { searchTransactionHistory: true }])).result.value[0];
    expect(status).toMatchObject({ err: null, confirmationStatus: "confirmed", status: { Ok: null } });
    expect((await rpc("getBalance", [who])).result.value).toBe(1_000_000_000);
  });
});

describe("ledger JSON-RPC handler: transactions (embedded ledger, real SPL Token)", () => {
  it("sends base58 (default) and base64, and getTransaction returns json and base64 forms", async () => {
    const wallets = await fundWallets(ledger, 10_000_000n);
    const blockhash = ledger.latestBlockhash();
    const first = await transferWire({ wallets, amount: 1_000_000n, blockhash });
    const second = await transferWire({ wallets, amount: 2_000_000n, blockhash });
    const sig1 = (await rpc("sendTransaction", [getBase58Decoder().decode(first)])).result;
    const sig2 = (await rpc("sendTransaction", [b64(second), { encoding: "base64" }])).result;
    expect(sig1).toBe(getBase58Decoder().decode(first.subarray(1, 65)));
    expect(typeof sig2).toBe("string");

    expect((await rpc("getTransaction", [sig1])).error?.code).toBe(-32015);
    const json = (await rpc("getTransaction", [sig1, { encoding: "json", maxSupportedTransactionVersion: 0 }])).result;
    expect(json.version).toBe(0);
    expect(json.meta).toMatchObject({ err: null, status: { Ok: null }, fee: 10000 });
    expect(json.transaction.message.recentBlockhash).toBe(blockhash.blockhash);
    expect(json.transaction.message.accountKeys[0]).toBe(wallets.feePayer.address);
    expect(json.transaction.signatures[0]).toBe(sig1);
    const post = json.meta.postTokenBalances as { owner: string; uiTokenAmount: { amount: string } }[];
    expect(post.find((b) => b.owner === wallets.payer.address)?.uiTokenAmount.amount).toBe("9000000");
    expect(post.find((b) => b.owner === wallets.recipient.address)?.uiTokenAmount.amount).toBe("1000000");
    const base64 = (await rpc("getTransaction", [sig2, { encoding: "base64", maxSupportedTransactionVersion: 0 }])).result;
    expect(base64.transaction).toEqual([b64(second), "base64"]);
    expect((await rpc("getTransaction", [getBase58Decoder().decode(new Uint8Array(64).fill(3)), { maxSupportedTransactionVersion: 0 }])).result).toBeNull();
  });

  it("answers preflight failures with -32002 and the error and logs; skipPreflight lands them with err", async () => {
    const wallets = await fundWallets(ledger, 5n);
    const wire = await transferWire({ wallets, amount: 6n, blockhash: ledger.latestBlockhash() });
    const refused = await rpc("sendTransaction", [b64(wire), { encoding: "base64" }]);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.message).toBe("Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1");
    expect(refused.error?.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(refused.error?.data.logs.join("\n")).toContain("insufficient funds");
    const signature = getBase58Decoder().decode(wire.subarray(1, 65));
    expect((await rpc("getSignatureStatuses", [[signature]])).result.value).toEqual([null]);

    const landed = await rpc("sendTransaction", [b64(wire), { encoding: "base64", skipPreflight: true }]);
    expect(landed.result).toBe(signature);
    const status = (await rpc("getSignatureStatuses", [[signature]])).result.value[0];
    expect(status.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const again = await rpc("sendTransaction", [b64(wire), { encoding: "base64" }]);
    expect(again.error?.message).toContain("already been processed");
  });

  it("simulates without signatures, refuses sigVerify on an empty slot, and replaces an expired blockhash", async () => {
    const wallets = await fundWallets(ledger, 10n);
    const blockhash = ledger.latestBlockhash();
    const partial = await transferWire({ wallets, amount: 3n, blockhash, feePayerUnsigned: true });
    const ok = (await rpc("simulateTransaction", [b64(partial), { encoding: "base64", sigVerify: false }])).result.value;
    expect(ok).toMatchObject({ err: null, replacementBlockhash: null });
    expect(ok.unitsConsumed).toBeGreaterThan(0);
    expect((await rpc("simulateTransaction", [b64(partial), { encoding: "base64", sigVerify: true }])).error?.code).toBe(-32003);
    expect((await rpc("simulateTransaction", [b64(partial), { encoding: "base64", sigVerify: true, replaceRecentBlockhash: true }])).error?.code).toBe(-32602);

    clock.advance(200 * 400);
    const expired = (await rpc("simulateTransaction", [b64(partial), { encoding: "base64" }])).result.value;
    expect(expired.err).toBe("BlockhashNotFound");
    const replaced = (await rpc("simulateTransaction", [b64(partial), { encoding: "base64", replaceRecentBlockhash: true }])).result.value;
    expect(replaced.err).toBeNull();
    expect(replaced.replacementBlockhash.blockhash).not.toBe(blockhash.blockhash);
    expect((await rpc("isBlockhashValid", [replaced.replacementBlockhash.blockhash])).result.value).toBe(true);
  });

  it("simulateTransaction's accounts: base64 post states in order, null when missing; malformed configs are -32602", async () => {
    const wallets = await fundWallets(ledger, 10n);
    const partial = b64(await transferWire({ wallets, amount: 3n, blockhash: ledger.latestBlockhash(), feePayerUnsigned: true }));
    const asked = { encoding: "base64", addresses: [wallets.source, wallets.payer.address] };
    const value = (await rpc("simulateTransaction", [partial, { encoding: "base64", accounts: asked }])).result.value;
    expect(value.err).toBeNull();
    expect(value.accounts[1]).toBeNull();
    expect(value.accounts[0]).toMatchObject({ owner: TOKEN_PROGRAM_ADDRESS, executable: false, space: 165 });
    expect(value.accounts[0].data[1]).toBe("base64");
    expect((await rpc("simulateTransaction", [partial, { encoding: "base64" }])).result.value.accounts).toBeNull();
    for (const accounts of [[], { addresses: "x" }, { addresses: ["not an address"] }, { encoding: "base58", addresses: [] }, { encoding: "base64+zstd", addresses: [] }]) {
      expect((await rpc("simulateTransaction", [partial, { encoding: "base64", accounts }])).error?.code).toBe(-32602);
    }
  });

  it("prices messages at 5000 lamports per signature, null once the blockhash expired", async () => {
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() });
    const message = b64(new Uint8Array(getTransactionDecoder().decode(wire).messageBytes));
    expect((await rpc("getFeeForMessage", [message])).result.value).toBe(10000);
    clock.advance(151 * 400);
    expect((await rpc("getFeeForMessage", [message])).result.value).toBeNull();
    expect((await rpc("getFeeForMessage", ["!!"])).error?.code).toBe(-32602);
  });

  it("SECURITY: answers malformed transaction bytes with -32602 and keeps serving", async () => {
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() });
    for (const bad of [wire.slice(0, -1), wire.slice(0, 70), new Uint8Array([...wire, 0]), new Uint8Array(300).fill(255)]) {
      for (const method of ["sendTransaction", "simulateTransaction"]) {
        expect((await rpc(method, [b64(bad), { encoding: "base64" }])).error?.code).toBe(-32602);
      }
      expect((await rpc("sendTransaction", [b64(bad), { encoding: "base64", skipPreflight: true }])).error?.code).toBe(-32602);
    }
    expect((await rpc("sendTransaction", ["***", { encoding: "base64" }])).error?.code).toBe(-32602);
    expect((await rpc("sendTransaction", ["0OIl"])).error?.code).toBe(-32602);
    expect((await rpc("sendTransaction", ["A".repeat(5000), { encoding: "base64" }])).error?.code).toBe(-32602);
    expect((await rpc("sendTransaction", [b64(wire), { encoding: "base64" }])).result).toBe(getBase58Decoder().decode(wire.subarray(1, 65)));
  });
});
