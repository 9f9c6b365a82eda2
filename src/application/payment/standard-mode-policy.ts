import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { preflightPayment } from "./ledger-preflight.ts";
import type { CandidateResult, ModePolicy } from "./mode-policy.ts";
import type { PaymentDeps } from "./payment-deps.ts";
import { checkStandardTransaction, verifyStandardPayment } from "./standard-checks.ts";

/**
 * Standard: the spec's default path. The payer signed a transaction with our key as fee payer;
 * /verify checks it (statically, then on the ledger), /settle co-signs, submits and confirms it.
 */
export const standardModePolicy: ModePolicy = Object.freeze({
  id: "standard",
  aliases: [],
  async verify(request: PaymentRequest, deps: PaymentDeps) {
    const payment = await verifyStandardPayment(request, deps);
    return payment.ok ? { ok: true, payer: payment.payer } : payment;
  },
  /**
   * Every static rule of /verify; the ledger's part (the simulation, with the funds reasons it
   * explains) is the candidate's preflight, which settlement runs beside its idempotency check,
   * just before signing, so a settled payment (whose funds are gone) still answers with its
   * record. The already-settled check is left out too: for /settle a settled payment is an
   * idempotent hit, not an error.
   */
  async settlementCandidate(request: PaymentRequest, deps: PaymentDeps): Promise<CandidateResult> {
    const payment = await checkStandardTransaction(request, deps);
    if (!payment.ok) return payment;
    const { payTo, asset } = request.paymentRequirements;
    return {
      ok: true,
      candidate: {
        kind: "transaction",
        key: payment.settlementKey,
        paymentId: payment.paymentId,
        payer: payment.payer,
        payTo,
        asset,
        amount: payment.amount,
        mode: "standard",
        feePayer: payment.feePayer,
        transaction: payment.transaction,
        blockhash: payment.recentBlockhash,
        feeLamports: payment.feeLamports,
        // SECURITY: the simulation is the gate: no signature for a transaction the ledger would refuse.
        preflight: () => preflightPayment(deps.ledger, payment.wire, payment.transfers, request.paymentRequirements, deps.tokenViews),
      },
    };
  },
  // A standard payment's record is found by its own key, after checking: nothing to answer first.
  replayKey: () => null,
  replayAuthorized: async () => false,
});
