// Real components: litesvm with the real SPL Token program, kit codecs. Time comes from a manual clock.
import { describe, expect, it } from "bun:test";
import { type Address, generateKeyPairSigner, getBase58Decoder, getBase58Encoder, type Signature } from "@solana/kit";
import { AccountState, getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { TransactionRefused } from "../src/index.ts";
import { createTestLedger, fundWallets, landed, malformedVariants, manualClock, transferWire, USDC } from "./support/fixtures.ts";

describe("embedded ledger: slots and epochs (manual clock)", () => {
  it("advances slots with the clock (400 ms each) and reports devnet-like epoch info", async () => {
    const clock = manualClock();
    const ledger = createTestLedger({ clock });
    const start = ledger.getSlot();
    clock.advance(399);
    expect(ledger.getSlot()).toBe(start);
    clock.advance(1);
    expect(ledger.getSlot()).toBe(start + 1n);
    const info = ledger.epochInfo();
    expect(info.slotsInEpoch).toBe(432_000n);
    expect(info.absoluteSlot).toBe(start + 1n);
  });
});

describe("embedded ledger: the Clock sysvar programs see (manual clock)", () => {
  const CLOCK_SYSVAR = "SysvarC1ock11111111111111111111111111111111" as Address;
  function clockSysvar(ledger: ReturnType<typeof createTestLedger>): Readonly<{ slot: bigint; unixTimestamp: bigint }> {
    const data = ledger.readAccount(CLOCK_SYSVAR)?.data ?? new Uint8Array(40);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    return { slot: view.getBigUint64(0, true), unixTimestamp: view.getBigInt64(32, true) };
  }

  it("follows the slot and the second at every transaction, also when only the second changed", async () => {
    // Booted 300 ms into a second: seconds turn at 700, 1700 ms; slots at every 400 ms.
    const clock = manualClock(1_750_000_000_300);
    const ledger = createTestLedger({ clock });
    const wallets = await fundWallets(ledger, 9_000_000n);
    const expectNow = () => expect(clockSysvar(ledger)).toEqual({ slot: ledger.getSlot(), unixTimestamp: BigInt(Math.floor(clock.now() / 1000)) });
    const simulateNow = async () => {
      const wire = await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() });
      expect(ledger.simulate(wire).ok).toBe(true);
    };
    await simulateNow();
    expectNow();
    clock.advance(1_350); // 1,350 ms: slot +3, the second 1,750,000,001
    await simulateNow();
    expectNow();
    clock.advance(300); // 1,650 ms: slot +4, still the second 1,750,000,001
    await simulateNow();
    expectNow();
    const slot = ledger.getSlot();
    clock.advance(100); // 1,750 ms: the same slot, the second 1,750,000,002
    expect(ledger.getSlot()).toBe(slot);
    await simulateNow();
    expectNow();
  });
});

describe("embedded ledger: history and development methods (litesvm)", () => {
  it("keeps landed transactions with balances, token balances and logs", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 9_000_000n);
    const wire = await transferWire({ wallets, amount: 2_000_000n, blockhash: ledger.latestBlockhash() });
    const signature = landed(ledger, wire);
    const record = ledger.getTransaction(signature);
    expect(record?.err).toBeNull();
    expect(record?.fee).toBe(10_000n); // two signatures
    expect((record?.preBalances[0] ?? 0n) - (record?.postBalances[0] ?? 0n)).toBe(10_000n);
    // Keyed by owner: the message orders writable accounts by address, which varies per run.
    const byOwner = new Map(record?.postTokenBalances.map((b) => [b.owner, b.amount]));
    expect(byOwner.get(wallets.payer.address)).toBe(7_000_000n);
    expect(byOwner.get(wallets.recipient.address)).toBe(2_000_000n);
    expect(record?.preTokenBalances.find((b) => b.owner === wallets.recipient.address)?.amount).toBe(0n);
    expect(record?.logs.some((l) => l.includes("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success"))).toBe(true);
    expect(ledger.getTransaction(getBase58Decoder().decode(new Uint8Array(64).fill(9)) as Signature)).toBeNull();
  });

  it("lands a failing transaction sent with skipPreflight, with its error, and charges the fee", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 5n);
    const wire = await transferWire({ wallets, amount: 6n, blockhash: ledger.latestBlockhash() });
    const result = ledger.submit(wire, { skipPreflight: true });
    expect(result.ok).toBe(true);
    const [status] = ledger.signatureStatuses([result.ok ? result.signature : ("" as Signature)]);
    expect(status?.err).toBe('{"InstructionError":[0,{"Custom":1}]}');
    expect(ledger.getBalance(wallets.feePayer.address)).toBe(1_000_000_000n - 10_000n);
    expect(ledger.getTokenAccountBalance(wallets.source)?.amount).toBe(5n);
  });

  it("airdrops with distinct signatures even for equal requests in the same slot", async () => {
    const ledger = createTestLedger({ clock: manualClock() });
    const who = (await generateKeyPairSigner()).address;
    const first = await ledger.requestAirdrop(who, 2_000_000_000n);
    const second = await ledger.requestAirdrop(who, 2_000_000_000n);
    expect(first).not.toBe(second);
    expect(ledger.getBalance(who)).toBe(4_000_000_000n);
    expect((ledger.signatureStatuses([first, second])).every((s) => s?.err === null)).toBe(true);
  });

  it("setTokenAccount creates then updates the owner's ATA and tracks the mint supply", async () => {
    const ledger = createTestLedger();
    const owner = (await generateKeyPairSigner()).address;
    const delegate = (await generateKeyPairSigner()).address;
    const ata = await ledger.setTokenAccount(owner, USDC, { amount: 50n });
    const again = await ledger.setTokenAccount(owner, USDC, { delegate, delegatedAmount: 20n, state: "frozen" });
    expect(again).toBe(ata);
    const account = ledger.readAccount(ata);
    expect(account?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(account?.lamports).toBe(ledger.getMinimumBalanceForRentExemption(165n));
    const token = getTokenDecoder().decode(account?.data ?? new Uint8Array(165));
    expect(token.amount).toBe(50n);
    expect(token.owner).toBe(owner);
    expect(token.delegatedAmount).toBe(20n);
    expect(token.state).toBe(AccountState.Frozen);
    await ledger.setTokenAccount(owner, USDC, { delegate: null });
    const cleared = getTokenDecoder().decode(ledger.readAccount(ata)?.data ?? new Uint8Array(165));
    expect(cleared.delegate).toEqual({ __option: "None" });
    expect(cleared.delegatedAmount).toBe(0n);
    const mint = ledger.readAccount(USDC)?.data ?? new Uint8Array(82);
    expect(new DataView(mint.buffer, mint.byteOffset).getBigUint64(36, true)).toBe(50n);
  });

  it("setAccount writes raw accounts that getProgramAccounts finds", async () => {
    const ledger = createTestLedger();
    const program = (await generateKeyPairSigner()).address;
    const target = (await generateKeyPairSigner()).address;
    ledger.setAccount(target, { lamports: 1_000n, data: new Uint8Array([1, 2, 3]), owner: program, rentEpoch: 7n });
    const [found] = await ledger.getProgramAccounts(program, [{ memcmp: { offset: 1, bytes: new Uint8Array([2, 3]) } }]);
    expect(found?.address).toBe(target);
    expect(found?.lamports).toBe(1_000n);
    expect(ledger.readAccountDetail(target)?.rentEpoch).toBe(7n);
    ledger.setAccount(target, { lamports: 5n });
    expect(ledger.readAccount(target)?.data).toEqual(new Uint8Array([1, 2, 3]));
  });
});

describe("embedded ledger: SECURITY malformed wire bytes never reach litesvm (process survives)", () => {
  it("refuses every truncation, extension, bit flip and garbage input, then keeps working", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 10n);
    const blockhash = ledger.latestBlockhash();
    const wire = await transferWire({ wallets, amount: 1n, blockhash });
    const partial = await transferWire({ wallets, amount: 1n, blockhash, feePayerUnsigned: true });
    let refused = 0;
    for (const bad of [...malformedVariants(wire), ...malformedVariants(partial)]) {
      const submitted = ledger.submit(bad);
      const simulated = ledger.simulate(bad, { sigVerify: false });
      ledger.submit(bad, { skipPreflight: true });
      // Same-length variants are flipped bytes: well-formed, so they fail on their merits
      // (bad signature, wrong decimals) instead; everything else is refused before litesvm.
      if (bad.length !== wire.length) expect(simulated.ok).toBe(false);
      if (!submitted.ok) refused += 1;
      expect(submitted.ok).toBe(false);
    }
    expect(refused).toBeGreaterThan(200);
    expect(ledger.getTokenAccountBalance(wallets.destination)?.amount).toBe(0n);
    landed(ledger, wire);
    expect(ledger.getTokenAccountBalance(wallets.destination)?.amount).toBe(1n);
  });

  it("refuses a message missing its last byte even when the signature section is intact", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 10n);
    const wire = await transferWire({ wallets, amount: 1n, blockhash: ledger.latestBlockhash() });
    const result = ledger.submit(wire.slice(0, -1));
    expect(result).toMatchObject({ ok: false, refusal: { kind: "malformed" } });
  });
});

describe("embedded ledger: identity and refusals as errors", () => {
  it("derives its genesis hash from the seed unless the host sets one", () => {
    const seed = new Uint8Array(32).fill(5);
    const derived = createTestLedger({ seed, genesisHash: undefined }).genesisHash();
    expect(createTestLedger({ seed, genesisHash: undefined }).genesisHash()).toBe(derived);
    expect(createTestLedger({ seed: new Uint8Array(32).fill(6), genesisHash: undefined }).genesisHash()).not.toBe(derived);
    expect(getBase58Encoder().encode(derived).length).toBe(32);
    expect(createTestLedger({ genesisHash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi" }).genesisHash()).toBe("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi");
  });

  it("TransactionRefused carries the refusal, its error and its logs in the message", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 5n);
    const result = ledger.submit(await transferWire({ wallets, amount: 6n, blockhash: ledger.latestBlockhash() }));
    if (result.ok) throw new Error("an overdraft was accepted");
    const error = new TransactionRefused(result.refusal);
    expect(error.refusal).toBe(result.refusal);
    expect(error.message).toStartWith(result.refusal.message);
    expect(error.message).toContain('({"InstructionError":[0,{"Custom":1}]})');
    expect(error.message).toContain("\nlogs:\n");
  });
});
