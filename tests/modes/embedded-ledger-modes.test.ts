import { describe, expect, test } from "bun:test";
import { generateKeyPairSigner, getBase58Decoder, getTransactionEncoder, getU64Encoder, signTransaction, type Address, type Signature } from "@solana/kit";
import { buildDelegatedTransfer } from "../../src/application/payment/modes/build-delegated-transfer.ts";
import { readTokenAccount } from "../../src/application/payment/token-accounts.ts";
import type { PaymentDeps } from "../../src/application/payment/payment-deps.ts";
import { checkModePayment, modeDeps } from "./support/mode-deps.ts";
import { LedgerError } from "../../src/application/ports/ledger.ts";
import { delegatedProofMessage } from "../../src/domain/modes/delegated-proof.ts";
import { AGENT_OWNER_VERSION_OFFSET } from "../../src/domain/modes/delegation-check.ts";
import { encodeDelegation } from "../../src/domain/modes/delegation.ts";
import { findAgentPda, findDelegationPda, findReceiptPda } from "../../src/domain/modes/mode-pdas.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../../src/domain/registry/agent-identity.ts";
import { encodePaymentReceipt } from "../../src/domain/modes/payment-receipt.ts";
import { USDC_DECIMALS } from "../../src/domain/networks.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { AGENT_MINT, NOW_MS, NOW_S, PAYMENT_ID, PAYMENT_ID_HEX, PROGRAM_ID, USDC, delegation, hex, modeRequest, receipt } from "./support/mode-fixtures.ts";
import { claimProof, fundReceiptParties, newWallet, payWithReceipt } from "./support/receipt-payments.ts";

const clock = { now: () => NOW_MS };

function depsFor(ledger: LocalLedger, feePayer: Address): PaymentDeps {
  return modeDeps(ledger, clock, [feePayer]);
}

describe("atomic and attestation modes on the embedded ledger (litesvm, real SPL Token transfers, seeded PaymentReceipt)", () => {
  test("the payer's two-transfer payment (net to payTo, fee to the treasury) with its receipt and claim proof verifies", async () => {
    const ledger = createLocalLedger({ clock });
    const [payer, payTo, treasury] = await Promise.all([newWallet(), newWallet(), newWallet()]);
    await fundReceiptParties(ledger, payer.address, [payTo.address, treasury.address]);
    const paid = await payWithReceipt(ledger, { payer, payTo: payTo.address, treasury: treasury.address, amount: 1_000_000n, feeAmount: 25_000n, mode: "attestation" });
    // The ledger's own view of that transaction, as the check reads it.
    const effects = await ledger.getTransactionEffects(paid.txSignature);
    expect(effects?.err).toBeNull();
    expect(effects?.tokenBalanceChanges).toEqual(
      expect.arrayContaining([
        { owner: payer.address, mint: USDC, delta: -1_000_000n },
        { owner: payTo.address, mint: USDC, delta: 975_000n },
        { owner: treasury.address, mint: USDC, delta: 25_000n },
      ]),
    );

    const request = modeRequest(
      { mode: "attestation", paymentId: paid.paymentIdHex, txSignature: paid.txSignature, receiptPda: paid.receiptPda, ...(await claimProof(payer.secret, paid.paymentIdHex, "/a2a", NOW_S)) },
      { payTo: payTo.address, resource: "https://agent.example/a2a" },
    );
    const result = await checkModePayment(request, depsFor(ledger, payer.address));
    expect(result).toMatchObject({ ok: true, mode: "attestation", payer: payer.address, amount: 1_000_000n, txSignature: paid.txSignature, receiptPda: paid.receiptPda });
  });

  test("a receipt naming a real transfer that paid less, or a signature the ledger never saw, is refused", async () => {
    const ledger = createLocalLedger({ clock });
    const [payer, payTo, treasury] = await Promise.all([newWallet(), newWallet(), newWallet()]);
    await fundReceiptParties(ledger, payer.address, [payTo.address, treasury.address]);
    const short = await payWithReceipt(ledger, {
      payer,
      payTo: payTo.address,
      treasury: treasury.address,
      amount: 1_000_000n,
      feeAmount: 0n,
      movements: [{ to: payTo.address, amount: 400_000n }],
    });
    const claim = async (paymentIdHex: string) => claimProof(payer.secret, paymentIdHex, "/a2a", NOW_S);
    const shortRequest = modeRequest({ mode: "atomic", paymentId: short.paymentIdHex, txSignature: short.txSignature, ...(await claim(short.paymentIdHex)) }, { payTo: payTo.address });
    const refused = await checkModePayment(shortRequest, depsFor(ledger, payer.address));
    expect(refused.ok ? null : refused.reason).toBe("MODE_TRANSFER_MISMATCH");

    // A receipt is only as good as the transaction it names: a signature the ledger never saw fails.
    const [receiptPda] = await findReceiptPda(PROGRAM_ID, PAYMENT_ID);
    const unsent = new Uint8Array(64).fill(3);
    ledger.setAccount(receiptPda, {
      lamports: 10_000_000n,
      owner: PROGRAM_ID,
      data: encodePaymentReceipt(receipt({ payer: payer.address, payee: payTo.address, txSignature: unsent, resource: "/a2a" })),
    });
    const forged = modeRequest({ mode: "atomic", paymentId: PAYMENT_ID_HEX, txSignature: getBase58Decoder().decode(unsent), ...(await claim(PAYMENT_ID_HEX)) }, { payTo: payTo.address });
    const unknown = await checkModePayment(forged, depsFor(ledger, payer.address));
    expect(unknown.ok ? null : unknown.reason).toBe("MODE_TX_NOT_FOUND");
  });
});

describe("delegated mode on the embedded ledger (litesvm, real SPL Token delegate authority)", () => {
  test("server-side proof verifies, buildDelegatedTransfer moves tokens as SPL delegate, and an exhausted allowance fails on chain", async () => {
    const ledger = createLocalLedger({ clock });
    const [payer, payee, facilitator] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    await ledger.airdrop(facilitator.address, 1_000_000_000n);
    const source = await ledger.setTokenAccount(payer.address, USDC, { amount: 10_000_000n, delegate: facilitator.address, delegatedAmount: 2_000_000n });
    const destination = await ledger.setTokenAccount(payee.address, USDC, { amount: 0n });

    async function proofRequest(paymentIdHex: string, amount: bigint) {
      const message = delegatedProofMessage({ paymentIdHex, payer: payer.address, payTo: payee.address, asset: USDC, amount, timestamp: NOW_S });
      const [signatures] = await payer.signMessages([{ content: message, signatures: {} }]);
      const signature = signatures?.[payer.address];
      if (!signature) throw new Error("payer did not sign");
      return modeRequest(
        { mode: "delegated", paymentId: paymentIdHex, payer: payer.address, signature: btoa(String.fromCharCode(...signature)), timestamp: NOW_S },
        { payTo: payee.address, amount },
      );
    }

    async function settle(amount: bigint, memo: string): Promise<Signature> {
      const latest = await ledger.getLatestBlockhash();
      const unsigned = await buildDelegatedTransfer({
        payer: payer.address,
        asset: USDC,
        decimals: USDC_DECIMALS,
        payTo: payee.address,
        amount,
        delegate: facilitator.address,
        blockhash: latest.blockhash,
        lastValidBlockHeight: latest.lastValidBlockHeight,
        memo,
      });
      expect(Object.keys(unsigned.signatures)).toEqual([facilitator.address]);
      const signed = await signTransaction([facilitator.keyPair], unsigned);
      return ledger.sendTransaction(new Uint8Array(getTransactionEncoder().encode(signed)));
    }

    const first = await checkModePayment(await proofRequest(PAYMENT_ID_HEX, 1_500_000n), depsFor(ledger, facilitator.address));
    expect(first).toMatchObject({ ok: true, delegated: { sourceTokenAccount: source, delegateAuthority: facilitator.address, authorisation: "server" } });

    const signature = await settle(1_500_000n, PAYMENT_ID_HEX);
    expect((await ledger.getSignatureStatuses([signature]))[0]?.err).toBeNull();
    expect(ledger.getTokenAccountBalance(destination)?.amount).toBe(1_500_000n);
    const after = await readTokenAccount(ledger, source);
    expect(after).toMatchObject({ amount: 8_500_000n, delegate: facilitator.address, delegatedAmount: 500_000n });

    // 500_000 of allowance left: verification refuses 1_000_000, and SPL Token refuses it too.
    const secondId = hex(new Uint8Array(32).fill(0xaa));
    const second = await checkModePayment(await proofRequest(secondId, 1_000_000n), depsFor(ledger, facilitator.address));
    expect(second.ok ? null : second.reason).toBe("DELEGATION_BUDGET_EXCEEDED");
    const onChain = settle(1_000_000n, secondId);
    await expect(onChain).rejects.toBeInstanceOf(LedgerError);
    expect(ledger.getTokenAccountBalance(destination)?.amount).toBe(1_500_000n);
  });
});

describe("client-side delegated mode on the embedded ledger (seeded Delegation and AgentIdentity accounts)", () => {
  test("a program-owned Delegation, its delegate's proof and the SPL allowance verify; clearing the SPL allowance refuses", async () => {
    const ledger = createLocalLedger({ clock });
    const [payer, payee, facilitator, operator] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    const value = delegation({ delegator: payer.address, delegate: operator.address, ownerVersion: 5n });
    const [delegationPda] = await findDelegationPda(PROGRAM_ID, payer.address, operator.address, value.delegationId);
    ledger.setAccount(delegationPda, { lamports: 5_000_000n, owner: PROGRAM_ID, data: encodeDelegation(value) });
    const [agentPda] = await findAgentPda(PROGRAM_ID, AGENT_MINT);
    const agent = new Uint8Array(300);
    agent.set(AGENT_IDENTITY_DISCRIMINATOR, 0);
    agent.set(getU64Encoder().encode(5n), AGENT_OWNER_VERSION_OFFSET);
    ledger.setAccount(agentPda, { lamports: 5_000_000n, owner: PROGRAM_ID, data: agent });
    const source = await ledger.setTokenAccount(payer.address, USDC, { amount: 3_000_000n, delegate: facilitator.address, delegatedAmount: 1_000_000n });

    // Client-side proofs are signed by the Delegation's delegate (the operator), not the payer.
    const message = delegatedProofMessage({ paymentIdHex: PAYMENT_ID_HEX, payer: payer.address, payTo: payee.address, asset: USDC, amount: 1_000_000n, timestamp: NOW_S });
    const [signatures] = await operator.signMessages([{ content: message, signatures: {} }]);
    const proof = signatures?.[operator.address];
    if (!proof) throw new Error("operator did not sign");
    const request = modeRequest(
      { mode: "delegated", paymentId: PAYMENT_ID_HEX, delegationPda, delegate: operator.address, payer: payer.address, signature: btoa(String.fromCharCode(...proof)), timestamp: NOW_S },
      { payTo: payee.address },
    );
    const result = await checkModePayment(request, depsFor(ledger, facilitator.address));
    expect(result).toMatchObject({ ok: true, payer: payer.address, delegated: { sourceTokenAccount: source, delegateAuthority: facilitator.address, authorisation: "client", delegationPda } });

    await ledger.setTokenAccount(payer.address, USDC, { delegate: null });
    const revoked = await checkModePayment(request, depsFor(ledger, facilitator.address));
    expect(revoked.ok ? null : revoked.reason).toBe("DELEGATION_INVALID");
  });
});
