// Real components: litesvm with the real SPL Token program, kit codecs. Time comes from a manual clock.
import { describe, expect, it } from "bun:test";
import { LedgerError } from "../../src/application/ports/ledger.ts";
import { generateKeyPairSigner } from "@solana/kit";
import { getMintDecoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { DEVNET_GENESIS_HASH, DEVNET_USDC_MINT, USDC_DECIMALS } from "../../src/domain/networks.ts";
import { createLocalLedger, serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { describeLedgerContract } from "./ledger-contract.ts";
import { fundWallets, manualClock, transferWire, USDC } from "./helpers.ts";

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

describe("local ledger presents the embedded ledger as devnet (litesvm, its JSON-RPC on a real socket)", () => {
  it("answers getGenesisHash with devnet's, over the runtime's listener", async () => {
    const server = serveLocalLedgerRpc(createLocalLedger(), { port: 0 });
    try {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getGenesisHash" }),
      });
      expect(((await response.json()) as { result: string }).result).toBe(DEVNET_GENESIS_HASH);
    } finally {
      await server.stop();
    }
  });

  it("creates the devnet USDC mint and every further accepted mint at boot (a repeated one too), 6 decimals each", async () => {
    const other = (await generateKeyPairSigner()).address;
    const ledger = createLocalLedger({ mints: [other, USDC, other] });
    for (const mint of [DEVNET_USDC_MINT, other]) {
      const account = await ledger.getAccount(mint as typeof other);
      expect(account?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
      expect(getMintDecoder().decode(account?.data ?? new Uint8Array(82)).decimals).toBe(USDC_DECIMALS);
    }
    // The shared test fixtures fund with the same mint the local ledger creates.
    expect(USDC).toBe(DEVNET_USDC_MINT as typeof USDC);
  });
});
