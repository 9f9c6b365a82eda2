// Real components: litesvm with the real SPL Token program. The embedded ledger answers
// getProgramAccounts from a JS-side copy of each program's accounts; these tests check that the copy
// follows every kind of write exactly as litesvm itself sees it (readAccount is a native read).
import { describe, expect, it } from "bun:test";
import { generateKeyPairSigner, getAddressEncoder, type Address } from "@solana/kit";
import { getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { LiteSVM } from "litesvm";
import type { EmbeddedLedger } from "../src/index.ts";
import { createTestLedger, fundWallets, landed, transferWire } from "./support/fixtures.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const newAddress = async () => (await generateKeyPairSigner()).address;

/** What litesvm itself holds for these addresses, in the snapshot shape, for those `program` owns. */
function native(ledger: EmbeddedLedger, program: Address, addresses: readonly Address[]) {
  return addresses
    .flatMap((address) => {
      const account = ledger.readAccount(address);
      return account && account.owner === program ? [{ address, lamports: account.lamports, data: account.data }] : [];
    })
    .sort((x, y) => x.address.localeCompare(y.address));
}

async function listed(ledger: EmbeddedLedger, program: Address, filters: Parameters<EmbeddedLedger["getProgramAccounts"]>[1] = []) {
  return (await ledger.getProgramAccounts(program, filters))
    .map((a) => ({ address: a.address, lamports: a.lamports, data: a.data }))
    .sort((x, y) => x.address.localeCompare(y.address));
}

describe("embedded ledger getProgramAccounts (JS-side copy kept exact across writes)", () => {
  it("follows cheat-code writes: changed data, new accounts, owner changes and accounts emptied of lamports", async () => {
    const ledger = createTestLedger();
    const [program, other] = await Promise.all([newAddress(), newAddress()]);
    const [a, b, c, d] = await Promise.all([newAddress(), newAddress(), newAddress(), newAddress()]);
    const tagged = { memcmp: { offset: 0, bytes: new Uint8Array([7]) } };
    for (const target of [a, b, c]) ledger.setAccount(target, { lamports: 1_000n, data: new Uint8Array([7, 1, 2]), owner: program });
    expect((await listed(ledger, program, [tagged])).map((x) => x.address).sort()).toEqual([a, b, c].sort());

    ledger.setAccount(b, { data: new Uint8Array([8, 1, 2]) }); // no longer matches the filter
    ledger.setAccount(d, { lamports: 5n, data: new Uint8Array([7, 9]), owner: program }); // new
    ledger.setAccount(c, { owner: other }); // moves to another program
    ledger.setAccount(a, { lamports: 0n }); // an account without lamports does not exist
    const wallet = await newAddress();
    ledger.setAccount(wallet, { lamports: 9n, data: new Uint8Array([7]), owner: program });
    ledger.setAccount(wallet, { owner: SYSTEM_PROGRAM, data: new Uint8Array(0) }); // to a program litesvm lists itself

    expect((await listed(ledger, program, [tagged])).map((x) => x.address)).toEqual([d]);
    expect((await listed(ledger, SYSTEM_PROGRAM)).some((x) => x.address === wallet)).toBe(true);
    expect(await listed(ledger, program)).toEqual(native(ledger, program, [a, b, c, d]));
    expect(await listed(ledger, other)).toEqual(native(ledger, other, [a, b, c, d]));
    expect((await listed(ledger, program, [{ dataSize: 2 }]))[0]?.data).toEqual(new Uint8Array([7, 9]));
  });

  it("follows landed transactions: token balances and the fee payer's lamports after a transfer", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 10n);
    const byOwner = (owner: Address) => [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: new Uint8Array(getAddressEncoder().encode(owner)) } }];
    const amountOf = async (owner: Address) => getTokenDecoder().decode((await ledger.getProgramAccounts(TOKEN_PROGRAM_ADDRESS, byOwner(owner)))[0]?.data ?? new Uint8Array(165)).amount;
    const feePayerLamports = async () => (await ledger.getProgramAccounts(SYSTEM_PROGRAM)).find((a) => a.address === wallets.feePayer.address)?.lamports;

    expect(await amountOf(wallets.recipient.address)).toBe(0n);
    const before = await feePayerLamports();
    landed(ledger, await transferWire({ wallets, amount: 4n, blockhash: ledger.latestBlockhash() }));

    expect(await amountOf(wallets.recipient.address)).toBe(4n);
    expect(await feePayerLamports()).toBe(ledger.getBalance(wallets.feePayer.address));
    expect(await feePayerLamports()).toBeLessThan(before ?? 0n);
  });

  it("hands out copies: changing returned bytes changes nothing in the ledger", async () => {
    const ledger = createTestLedger();
    const [program, target] = await Promise.all([newAddress(), newAddress()]);
    ledger.setAccount(target, { lamports: 1_000n, data: new Uint8Array([1, 2, 3]), owner: program });
    const [first] = await ledger.getProgramAccounts(program);
    first?.data.fill(0);
    const [again] = await ledger.getProgramAccounts(program);
    expect(again?.data).toEqual(new Uint8Array([1, 2, 3]));
    expect(ledger.readAccount(target)?.data).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("rests on litesvm creating, at boot, no account owned by a program outside the ones it lists natively", () => {
    const svm = new LiteSVM().withBlockhashCheck(false).withSigverify(true);
    const programs = [
      TOKEN_PROGRAM_ADDRESS,
      "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
      "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
      "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
      "AddressLookupTab1e1111111111111111111111111",
      "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5",
    ] as Address[];
    for (const program of programs) expect(svm.getProgramAccounts(program).length).toBe(0);
  });
});
