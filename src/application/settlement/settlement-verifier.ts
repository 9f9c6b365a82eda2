import { type PaymentRequest, settlementModeOf } from "../../domain/payment/payment-request.ts";
import type { PaymentCheckDeps } from "../modes/check-payment.ts";
import { preflightPayment } from "../ledger-preflight.ts";
import { type VerifyPaymentDeps, verifyPayment } from "../verify-payment.ts";
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
 * The standard-mode verification for /settle: every static rule of /verify; the ledger's part
 * (simulation, with the funds reasons it explains) is the candidate's preflight, which settlement
 * runs beside its idempotency check, just before signing, so a settled payment (whose funds are
 * gone) still answers with its record. The already-settled check is left out too: for /settle a
 * settled payment is an idempotent hit, not an error.
 */
export function standardSettlementVerifier(deps: VerifyPaymentDeps): VerifyForSettlement {
  const settleDeps: VerifyPaymentDeps = { ...deps, simulate: false, checkFunds: false, settledLookup: undefined };
  // The account reads that explain failed simulations share one getMultipleAccounts per batch.
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
        // SECURITY: the simulation is the gate: no signature for a transaction the ledger would refuse.
        preflight: () => preflightPayment(accounts, verified.wire, verified.transfers, request.paymentRequirements, deps.tokenViews),
      },
    };
  };
}
