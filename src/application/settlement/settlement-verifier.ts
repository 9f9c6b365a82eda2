import { type PaymentRequest, settlementModeOf } from "../../domain/payment/payment-request.ts";
import type { PaymentCheckDeps } from "../modes/check-payment.ts";
import { type VerifyPaymentDeps, checkTransferAccounts, verifyPayment } from "../verify-payment.ts";
import { withBatchedAccountReads } from "./batched-account-reads.ts";
import { modeSettlementVerifier } from "./mode-settlement-verifier.ts";
import type { VerifyForSettlement } from "./settle-payment.ts";

/** /settle's verification for every kind of payment: standard, or the mode `extensions.mode` names. */
export function settlementVerifier(deps: PaymentCheckDeps): VerifyForSettlement {
  const standard = standardSettlementVerifier(deps);
  const byMode = modeSettlementVerifier(deps);
  return (request) => (settlementModeOf(request.paymentPayload) === undefined ? standard(request) : byMode(request));
}

/**
 * The standard-mode verification for /settle: every rule of /verify except the ledger
 * simulation, which the submission's own preflight repeats on the co-signed bytes (a failure
 * there is the spec's SETTLEMENT_FAILED with the ledger's message), and the funds check, which
 * settlement itself runs just before signing. The already-settled check is left out too: for
 * /settle a settled payment is an idempotent hit, not an error.
 */
export function standardSettlementVerifier(deps: VerifyPaymentDeps): VerifyForSettlement {
  const settleDeps: VerifyPaymentDeps = { ...deps, simulate: false, checkFunds: false, settledLookup: undefined };
  // The funds checks of the settlements in flight share one getMultipleAccounts per batch.
  const accounts = withBatchedAccountReads(deps.ledger);
  return async (request: PaymentRequest) => {
    const verified = await verifyPayment(request, settleDeps);
    if (!verified.ok) return verified;
    return {
      ok: true,
      candidate: {
        kind: "transaction",
        key: verified.settlementKey,
        paymentId: verified.paymentId,
        payer: verified.payer,
        payTo: request.paymentRequirements.payTo,
        asset: request.paymentRequirements.asset,
        amount: verified.amount,
        mode: "standard",
        feePayer: verified.feePayer,
        transaction: verified.transaction,
        blockhash: verified.recentBlockhash,
        feeLamports: verified.feeLamports,
        // SECURITY: run after the idempotency check (a settled payment's funds are gone) and
        // before anything is signed: no signature for a payment that cannot pay.
        checkFundable: () => checkTransferAccounts(accounts, verified.transfers, request.paymentRequirements, deps.tokenViews),
      },
    };
  };
}
