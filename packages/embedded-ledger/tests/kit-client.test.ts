// Real components: @solana/kit's createSolanaRpc over HTTP to the embedded ledger's JSON-RPC
// server (Bun.serve on a random port), litesvm running the real SPL Token program.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Signature,
} from "@solana/kit";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";

import { serveLedgerRpc, type LedgerRpcServer } from "../src/index.ts";
import { bunListener } from "./support/bun-listener.ts";
import { createTestLedger, GENESIS_HASH, USDC, USDC_DECIMALS } from "./support/fixtures.ts";

let server: LedgerRpcServer;

beforeAll(() => {
  server = serveLedgerRpc(createTestLedger(), { host: "127.0.0.1", port: 0, listener: bunListener });
});
afterAll(async () => {
  await server.stop();
});

async function ataOf(owner: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

describe("kit createSolanaRpc client against the embedded ledger JSON-RPC server", () => {
  it("funds wallets via cheat codes, sends a TransferChecked and reads both balances", async () => {
    const rpc = createSolanaRpc(server.url);
    expect(String(await rpc.getGenesisHash().send())).toBe(GENESIS_HASH);
    const [payer, recipient] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);

    // Surfpool-shaped cheat codes through the same endpoint (kit has no typed method for them).
    const cheat = async (method: string, params: unknown[]) => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await response.json()) as { result?: { value: unknown }; error?: unknown };
      expect(body.error).toBeUndefined();
      return body.result;
    };
    await cheat("surfnet_setAccount", [payer.address, { lamports: 2_000_000_000 }]);
    await cheat("surfnet_setTokenAccount", [payer.address, USDC, { amount: 25_000_000 }]);
    await cheat("surfnet_setTokenAccount", [recipient.address, USDC, {}]);
    expect((await rpc.getBalance(payer.address).send()).value).toBe(lamports(2_000_000_000n));

    const [source, destination] = await Promise.all([ataOf(payer.address), ataOf(recipient.address)]);
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstructions(
          [getTransferCheckedInstruction({ source, mint: USDC, destination, authority: payer, amount: 7_500_000n, decimals: USDC_DECIMALS })],
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64" }).send();
    expect(signature).toBe(getSignatureFromTransaction(signed));

    const status = await pollUntilConfirmed(rpc, signature);
    expect(status.err).toBeNull();

    const [sourceBalance, destinationBalance] = await Promise.all([
      rpc.getTokenAccountBalance(source).send(),
      rpc.getTokenAccountBalance(destination).send(),
    ]);
    expect(sourceBalance.value).toMatchObject({ amount: "17500000", decimals: 6, uiAmountString: "17.5" });
    expect(destinationBalance.value).toMatchObject({ amount: "7500000", decimals: 6, uiAmountString: "7.5" });
    const fee = 5000n;
    expect((await rpc.getBalance(payer.address).send()).value).toBe(lamports(2_000_000_000n - fee));

    const transaction = await rpc.getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0 }).send();
    expect(transaction?.meta?.err).toBeNull();
    expect(transaction?.meta?.fee).toBe(lamports(fee));
  });
});

/** Polls getSignatureStatuses as the facilitator does; bounded by attempts, not by time. */
async function pollUntilConfirmed(rpc: ReturnType<typeof createSolanaRpc>, signature: Signature) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
    const status = value[0];
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) return status;
    await Bun.sleep(20);
  }
  throw new Error(`transaction ${signature} was not confirmed`);
}
