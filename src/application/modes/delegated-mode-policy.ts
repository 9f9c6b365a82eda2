import type { ModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { modeSettlementKey } from "../../domain/settlement/mode-settlement-key.ts";
import { LAMPORTS_PER_SIGNATURE } from "../../domain/verification/fee-checks.ts";
import { preflightTransaction } from "../ledger-preflight.ts";
import { isDelegatedReplayAuthorized } from "./authorize-replay.ts";
import { buildDelegatedTransfer } from "./build-delegated-transfer.ts";
import { checkDelegatedPayment } from "./check-delegated-payment.ts";
import { defineModePolicy } from "./mode-policy.ts";

/**
 * Delegated: the facilitator builds a TransferChecked itself, moving the payer's tokens with the
 * SPL delegate allowance one of our fee payers holds, then co-signs, claims, submits and confirms
 * it like a standard payment. The domain parser already requires `payer` or `delegationPda`.
 */
export const delegatedModePolicy = defineModePolicy<ModeExtensions>({
  id: "delegated",
  aliases: ["svc-delegated", "x84-delegated"],
  parse: (extensions) => extensions,
  check: (extensions, { payTo, asset, amount }, deps) =>
    checkDelegatedPayment(extensions, { payTo, asset, amount }, { ...deps, feePayers: deps.feePayers() }),
  settlementCandidate: async (verified, { request, payTo, asset }, deps) => {
    const delegated = verified.delegated;
    if (!delegated) return { ok: false, reason: "DELEGATION_INVALID", message: "no SPL delegate grant to settle with" };
    const latest = await deps.ledger.getLatestBlockhash();
    const transaction = await buildDelegatedTransfer({
      payer: verified.payer,
      asset,
      decimals: deps.assetDecimals,
      payTo,
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
        // SECURITY: simulated before we sign, like every transaction we pay for.
        preflight: () => preflightTransaction(deps.ledger, transaction, verified.payer),
        ...(delegated.budget && delegated.delegationPda ? { budget: { delegation: delegated.delegationPda, ...delegated.budget } } : {}),
        // SECURITY: the key already carries the paymentId; see receipt-mode-policy.ts for why the
        // shared paymentId column stays empty.
        paymentId: null,
        payer: verified.payer,
        payTo: request.paymentRequirements.payTo,
        asset: request.paymentRequirements.asset,
        amount: verified.amount,
      },
    };
  },
  // Once paid, the proof window and the allowance no longer hold: the truthful answer to a
  // retry is the original result, so a settled record is answered before checking again.
  replayKey: (extensions) => modeSettlementKey("delegated", extensions.paymentIdHex),
  replayAuthorized: isDelegatedReplayAuthorized,
});
