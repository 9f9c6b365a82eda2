import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { generateKeyPairSigner, getBase58Decoder, type Signature } from "@solana/kit";
import { getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { LedgerError, type Ledger } from "../../src/application/ports/ledger.ts";
import { DEVNET_GENESIS_HASH } from "../../src/domain/networks.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { fundWallets, malformedVariants, transferWire, USDC } from "./helpers.ts";

export type ContractSubject = Readonly<{
  /** The adapter under test. */
  ledger: Ledger;
  /** The embedded ledger behind it, for funding and for checking state independently. */
  dev: LocalLedger;
  close(): Promise<void>;
}>;

async function rejectionOf(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LedgerError) return error;
    throw error;
  }
  throw new Error("expected a LedgerError, but the call succeeded");
}

function tokenAmount(dev: LocalLedger, account: Parameters<LocalLedger["getTokenAccountBalance"]>[0]): bigint | undefined {
  return dev.getTokenAccountBalance(account)?.amount;
}

/** The Ledger port's contract; every adapter must pass it unchanged. */
export function describeLedgerContract(name: string, makeSubject: () => Promise<ContractSubject>): void {
  describe(`Ledger contract: ${name}`, () => {
    let subject: ContractSubject;
    beforeAll(async () => {
      subject = await makeSubject();
    });
    afterAll(async () => {
      await subject.close();
    });

    it("hands out a valid blockhash whose lastValidBlockHeight is 150 blocks ahead", async () => {
      const { ledger } = subject;
      const latest = await ledger.getLatestBlockhash();
      const height = await ledger.getBlockHeight();
      expect(latest.lastValidBlockHeight - height).toBeGreaterThanOrEqual(149n);
      expect(latest.lastValidBlockHeight - height).toBeLessThanOrEqual(150n);
      expect(await ledger.isBlockhashValid(latest.blockhash)).toBe(true);
      const stranger = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32)));
      expect(await ledger.isBlockhashValid(stranger)).toBe(false);
    });

    it("reads the devnet USDC mint (real SPL layout, 6 decimals) and null for unknown accounts", async () => {
      const mint = await subject.ledger.getAccount(USDC);
      expect(mint?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
      expect(mint?.data.length).toBe(82);
      expect(mint?.data[44]).toBe(6); // decimals byte of the Mint layout
      const nobody = (await generateKeyPairSigner()).address;
      expect(await subject.ledger.getAccount(nobody)).toBeNull();
      const many = await subject.ledger.getMultipleAccounts([nobody, USDC]);
      expect(many[0]).toBeNull();
      expect(many[1]?.address).toBe(USDC);
    });

    it("filters program accounts by memcmp and dataSize", async () => {
      const wallets = await fundWallets(subject.dev, 1n);
      const ownerFilter = { memcmp: { offset: 32, bytes: new Uint8Array(subject.dev.readAccount(wallets.source)?.data.subarray(32, 64) ?? []) } };
      const found = await subject.ledger.getProgramAccounts(TOKEN_PROGRAM_ADDRESS, [{ dataSize: 165 }, ownerFilter]);
      expect(found.map((a) => a.address)).toEqual([wallets.source]);
      const none = await subject.ledger.getProgramAccounts(TOKEN_PROGRAM_ADDRESS, [{ dataSize: 7 }]);
      expect(none).toEqual([]);
    });

    it("simulates with the fee-payer slot empty, then lands the co-signed transfer", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 5_000_000n);
      const blockhash = await ledger.getLatestBlockhash();
      const partial = await transferWire({ wallets, amount: 1_250_000n, blockhash, feePayerUnsigned: true });
      expect(partial.subarray(1, 65).every((b) => b === 0)).toBe(true);
      const simulation = await ledger.simulateTransaction(partial, { sigVerify: false });
      expect(simulation.ok).toBe(true);
      if (simulation.ok) expect(simulation.unitsConsumed).toBeGreaterThan(0n);
      expect(tokenAmount(dev, wallets.source)).toBe(5_000_000n); // simulation changed nothing

      const signed = await transferWire({ wallets, amount: 1_250_000n, blockhash });
      const signature = await ledger.sendTransaction(signed);
      const expected = getBase58Decoder().decode(signed.subarray(1, 65));
      expect(signature).toBe(expected as Signature);
      const [status] = await ledger.getSignatureStatuses([signature]);
      expect(status?.err).toBeNull();
      expect(["confirmed", "finalized"]).toContain(status?.confirmationStatus ?? "missing");
      expect(tokenAmount(dev, wallets.source)).toBe(3_750_000n);
      expect(tokenAmount(dev, wallets.destination)).toBe(1_250_000n);
    });

    it("returns the asked accounts as the simulation left them (null for none), changing nothing", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 5_000_000n);
      const nobody = (await generateKeyPairSigner()).address;
      const partial = await transferWire({ wallets, amount: 1_250_000n, blockhash: await ledger.getLatestBlockhash(), feePayerUnsigned: true });
      const simulation = await ledger.simulateTransaction(partial, { sigVerify: false, accounts: [wallets.source, nobody, wallets.destination] });
      if (!simulation.ok) throw new Error(simulation.error);
      const [source, missing, destination] = simulation.accounts ?? [];
      expect(missing).toBeNull();
      expect(source?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
      const amountOf = (account: typeof source) => (account ? getTokenDecoder().decode(account.data).amount : undefined);
      expect([source?.address, amountOf(source), getTokenDecoder().decode(source?.data ?? new Uint8Array(165)).owner]).toEqual([wallets.source, 3_750_000n, wallets.payer.address]);
      expect(amountOf(destination)).toBe(1_250_000n);
      expect(tokenAmount(dev, wallets.source)).toBe(5_000_000n);
      const plain = await ledger.simulateTransaction(partial, { sigVerify: false });
      expect(plain.ok && plain.accounts).toBeUndefined();
    });

    it("rejects a transfer beyond the token balance at preflight, with logs, and it never lands", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 100n);
      const wire = await transferWire({ wallets, amount: 101n, blockhash: await ledger.getLatestBlockhash() });
      const simulation = await ledger.simulateTransaction(wire);
      expect(simulation.ok).toBe(false);
      if (!simulation.ok) expect(simulation.error).toContain("InstructionError");
      const error = await rejectionOf(ledger.sendTransaction(wire));
      expect(error.kind).toBe("rejected");
      expect(error.message).toContain("custom program error: 0x1");
      expect(error.logs.some((line) => line.includes("insufficient funds"))).toBe(true);
      const signature = getBase58Decoder().decode(wire.subarray(1, 65)) as Signature;
      expect(await ledger.getSignatureStatuses([signature])).toEqual([null]);
      expect(tokenAmount(dev, wallets.source)).toBe(100n);
      expect(dev.getBalance(wallets.feePayer.address)).toBe(1_000_000_000n); // no fee charged
    });

    it("rejects a fee payer without funds", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 10n);
      const broke = { ...wallets, feePayer: await generateKeyPairSigner() };
      const wire = await transferWire({ wallets: broke, amount: 1n, blockhash: await ledger.getLatestBlockhash() });
      const error = await rejectionOf(ledger.sendTransaction(wire));
      expect(error.kind).toBe("rejected");
      expect(error.message).toMatch(/AccountNotFound|InsufficientFundsForFee/);
    });

    it("never executes a signature twice", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 10n);
      const wire = await transferWire({ wallets, amount: 4n, blockhash: await ledger.getLatestBlockhash() });
      await ledger.sendTransaction(wire);
      const error = await rejectionOf(ledger.sendTransaction(wire));
      expect(error.kind).toBe("rejected");
      expect(error.message).toContain("already been processed");
      expect(tokenAmount(dev, wallets.destination)).toBe(4n);
    });

    it("rejects an unknown blockhash as BlockhashNotFound", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 10n);
      const stranger = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32)));
      const wire = await transferWire({ wallets, amount: 1n, blockhash: { blockhash: stranger, lastValidBlockHeight: 0n } });
      const error = await rejectionOf(ledger.sendTransaction(wire));
      expect(error.kind).toBe("rejected");
      expect(error.message).toContain("Blockhash not found");
      const simulation = await ledger.simulateTransaction(wire);
      expect(simulation).toMatchObject({ ok: false, error: "BlockhashNotFound" });
    });

    it("refuses malformed bytes as rejected and keeps serving", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 10n);
      const wire = await transferWire({ wallets, amount: 1n, blockhash: await ledger.getLatestBlockhash() });
      // A sample here (every variant runs in the embedded adapter's own test).
      for (const bad of malformedVariants(wire).filter((_, i) => i % 23 === 0)) {
        const error = await rejectionOf(ledger.sendTransaction(bad));
        expect(error.kind).toBe("rejected");
        expect((await ledger.simulateTransaction(bad)).ok).toBe(false);
      }
      await ledger.ping();
      // The valid original still lands after all that.
      expect(await ledger.sendTransaction(wire)).toBe(getBase58Decoder().decode(wire.subarray(1, 65)) as Signature);
    });

    it("getTransactionEffects: a landed transfer's success, slot and token balance changes by owner and mint", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 5_000_000n);
      const signature = await ledger.sendTransaction(await transferWire({ wallets, amount: 1_250_000n, blockhash: await ledger.getLatestBlockhash() }));
      const effects = await ledger.getTransactionEffects(signature);
      const [status] = await ledger.getSignatureStatuses([signature]);
      expect(effects?.err).toBeNull();
      expect(effects?.slot).toBe(status?.slot ?? -1n);
      // Both token accounts are listed, as a real node's pre/postTokenBalances list them, with their owners.
      expect([...(effects?.tokenBalanceChanges ?? [])].sort((a, b) => Number(a.delta - b.delta))).toEqual([
        { owner: wallets.payer.address, mint: USDC, delta: -1_250_000n },
        { owner: wallets.recipient.address, mint: USDC, delta: 1_250_000n },
      ]);
    });

    it("getTransactionEffects: a transaction that landed and failed carries its error and moved no tokens; unknown is null", async () => {
      const { ledger, dev } = subject;
      const wallets = await fundWallets(dev, 100n);
      const wire = await transferWire({ wallets, amount: 101n, blockhash: await ledger.getLatestBlockhash() });
      // Without preflight it lands as a failed transaction (fee charged), as on a real cluster.
      const landed = dev.submit(wire, { skipPreflight: true });
      if (!landed.ok) throw new Error(landed.refusal.message);
      const effects = await ledger.getTransactionEffects(landed.signature);
      const [status] = await ledger.getSignatureStatuses([landed.signature]);
      expect(effects?.err).toContain("InstructionError");
      expect(effects?.err).toBe(status?.err ?? "missing");
      expect(effects?.tokenBalanceChanges.every((change) => change.delta === 0n)).toBe(true);
      const unknown = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64))) as Signature;
      expect(await ledger.getTransactionEffects(unknown)).toBeNull();
    });

    it("returns null statuses for unknown signatures and answers ping", async () => {
      const unknown = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64))) as Signature;
      expect(await subject.ledger.getSignatureStatuses([unknown])).toEqual([null]);
      await subject.ledger.ping();
    });

    it("names its cluster by the genesis hash: the embedded ledger presents devnet's", async () => {
      expect(await subject.ledger.getGenesisHash()).toBe(DEVNET_GENESIS_HASH);
    });
  });
}
