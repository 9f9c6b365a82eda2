// Real components: litesvm with the real SPL Token program, kit codecs. No mocks.
import { describe, expect, it } from "bun:test";
import { getCompiledTransactionMessageDecoder, getTransactionDecoder, type Address } from "@solana/kit";
import type { TokenBalance } from "../src/index.ts";
import type { EmbeddedLedger } from "../src/index.ts";
import { createTestLedger, fundWallets, landed, transferWire, USDC } from "./support/fixtures.ts";

function staticAccounts(wire: Uint8Array): readonly Address[] {
  return getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(wire).messageBytes).staticAccounts;
}

/** What the RPC must report, read live account by account (lamports and `getTokenAccountBalance`). */
function liveBalances(ledger: EmbeddedLedger, accounts: readonly Address[]) {
  const tokens: TokenBalance[] = [];
  accounts.forEach((account, accountIndex) => {
    const balance = ledger.getTokenAccountBalance(account);
    if (balance) tokens.push({ ...balance, accountIndex });
  });
  return { lamports: accounts.map((a) => ledger.getBalance(a)), tokens };
}

describe("embedded ledger: getTransaction balances (litesvm, real SPL Token)", () => {
  it("reports pre/post lamports and token balances equal to live reads around the send", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 9_000_000n);
    const wire = await transferWire({ wallets, amount: 2_500_000n, blockhash: ledger.latestBlockhash() });
    const accounts = staticAccounts(wire);
    const before = liveBalances(ledger, accounts);
    const signature = landed(ledger, wire);
    const after = liveBalances(ledger, accounts);
    const record = ledger.getTransaction(signature);
    expect(record?.preBalances).toEqual(before.lamports);
    expect(record?.postBalances).toEqual(after.lamports);
    expect(record?.preTokenBalances).toEqual(before.tokens);
    expect(record?.postTokenBalances).toEqual(after.tokens);
    expect(after.tokens.map((t) => t.amount).sort()).toEqual([2_500_000n, 6_500_000n]);
    expect(before.lamports).not.toEqual(after.lamports);
  });

  it("keeps the balances of send time after later changes to the same accounts and mint", async () => {
    const ledger = createTestLedger();
    const wallets = await fundWallets(ledger, 4_000_000n);
    const wire = await transferWire({ wallets, amount: 1_000_000n, blockhash: ledger.latestBlockhash() });
    const accounts = staticAccounts(wire);
    const signature = landed(ledger, wire);
    const after = liveBalances(ledger, accounts);

    // Later cheat-code writes: new token amounts, new lamports, a mint with other decimals.
    await ledger.setTokenAccount(wallets.payer.address, USDC, { amount: 1n });
    await ledger.setTokenAccount(wallets.recipient.address, USDC, { amount: 2n });
    ledger.setAccount(wallets.feePayer.address, { lamports: 42n });
    const mint = ledger.readAccount(USDC);
    if (!mint) throw new Error("no mint");
    const data = new Uint8Array(mint.data);
    data[44] = 9; // decimals
    ledger.setAccount(USDC, { data });

    const record = ledger.getTransaction(signature);
    expect(record?.postBalances).toEqual(after.lamports);
    expect(record?.postTokenBalances).toEqual(after.tokens);
    expect(record?.postTokenBalances.every((t) => t.decimals === 6)).toBe(true);
    expect(ledger.getTokenAccountBalance(wallets.source)?.decimals).toBe(9);
  });
});
