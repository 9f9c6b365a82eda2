import type { Address } from "@solana/kit";
import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { modeSettlementKey } from "../../domain/settlement/mode-settlement-key.ts";
import { LAMPORTS_PER_SIGNATURE } from "../../domain/verification/fee-checks.ts";
import type { Ledger } from "../ports/ledger.ts";
import { buildDelegatedTransfer } from "../modes/build-delegated-transfer.ts";
import { type VerifyAnyDeps, verifyModeRequest } from "../modes/verify-any-payment.ts";
import type { VerifyForSettlement } from "./settle-payment.ts";

/**
 * /settle for `extensions.mode` requests. Atomic and attestation payments are already on-chain
 * and become record-only candidates. A delegated payment becomes a TransferChecked the
 * facilitator builds itself, moving the payer's tokens with our SPL delegate allowance; it then
 * goes through the same co-sign, claim, submit and confirm steps as a standard payment.
 */
export function modeSettlementVerifier(deps: VerifyAnyDeps & Readonly<{ ledger: Ledger; assetDecimals: number }>): VerifyForSettlement {
  return async (request: PaymentRequest) => {
    const verified = await verifyModeRequest(request, deps);
    if (!verified.ok) return verified;
    const { payTo, asset } = request.paymentRequirements;
    // SECURITY: the key already carries the paymentId (one record per mode payment). It is not
    // stored in the shared paymentId column, where a standard payment could otherwise take a
    // public on-chain receipt's id first and block the real payment from being recorded.
    const common = { paymentId: null, payer: verified.payer, payTo, asset, amount: verified.amount } as const;
    if (verified.mode !== "delegated") {
      if (!verified.txSignature) return { ok: false, reason: "MODE_INVALID", message: "extensions.txSignature is required" };
      return {
        ok: true,
        candidate: { kind: "record", key: modeSettlementKey(verified.mode, verified.paymentId), mode: verified.mode, txSignature: verified.txSignature, ...common },
      };
    }
    const delegated = verified.delegated;
    if (!delegated) return { ok: false, reason: "DELEGATION_INVALID", message: "no SPL delegate grant to settle with" };
    const latest = await deps.ledger.getLatestBlockhash();
    const transaction = await buildDelegatedTransfer({
      payer: verified.payer,
      // Both were checked to be base58 addresses by verifyModePayment.
      asset: asset as Address,
      decimals: deps.assetDecimals,
      payTo: payTo as Address,
      amount: verified.amount,
      delegate: delegated.delegateAuthority,
      blockhash: latest.blockhash,
      lastValidBlockHeight: latest.lastValidBlockHeight,
      // The paymentId in a memo makes two equal payments in one blockhash window distinct transactions.
      memo: verified.paymentId,
    });
    return {
      ok: true,
      candidate: {
        kind: "transaction",
        key: modeSettlementKey("delegated", verified.paymentId),
        mode: "delegated",
        feePayer: delegated.delegateAuthority,
        transaction,
        blockhash: latest.blockhash,
        // We build it: one signature (ours, as fee payer and SPL delegate), no priority fee.
        feeLamports: LAMPORTS_PER_SIGNATURE,
        ...(delegated.budget && delegated.delegationPda ? { budget: { delegation: delegated.delegationPda, ...delegated.budget } } : {}),
        ...common,
      },
    };
  };
}
