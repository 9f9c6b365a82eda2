// Real components: litesvm with the real SPL Token program, kit codecs. Time comes from a manual clock.
import { describe, expect, it } from "bun:test";
import { LedgerError } from "../../src/application/ports/ledger.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { describeLedgerContract } from "./ledger-contract.ts";
import { fundWallets, manualClock, transferWire } from "./helpers.ts";

describeLedgerContract("local ledger, the port over @x84/embedded-ledger (litesvm, direct)", async () => {
  const dev = createLocalLedger();
  return { ledger: dev, dev, close: async () => {} };
});

describe("local ledger: blockhash expiry through the port (litesvm, manual clock)", () => {
  it("keeps a blockhash valid for 150 blocks and rejects it as BlockhashNotFound after", async () => {
    const clock = manualClock();
    const ledger = createLocalLedger({ clock });
    const wallets = await fundWallets(ledger, 10n);
    const blockhash = await ledger.getLatestBlockhash();
    expect(blockhash.lastValidBlockHeight).toBe((await ledger.getBlockHeight()) + 150n);
    const early = await transferWire({ wallets, amount: 1n, blockhash });
    const late = await transferWire({ wallets, amount: 2n, blockhash });

    clock.advance(150 * 400); // height = lastValidBlockHeight: still valid
    expect(await ledger.getBlockHeight()).toBe(blockhash.lastValidBlockHeight);
    expect(await ledger.isBlockhashValid(blockhash.blockhash)).toBe(true);
    await ledger.sendTransaction(early);

    clock.advance(400); // one block past
    expect(await ledger.isBlockhashValid(blockhash.blockhash)).toBe(false);
    const error = await ledger.sendTransaction(late).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).message).toContain("Blockhash not found");
    expect(ledger.getTokenAccountBalance(wallets.destination)?.amount).toBe(1n);
    const fresh = await ledger.getLatestBlockhash();
    expect(fresh.blockhash).not.toBe(blockhash.blockhash);
  });
});
