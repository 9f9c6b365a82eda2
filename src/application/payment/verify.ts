import { type PaymentPayload, type PaymentRequest, paymentModeOf } from "../../domain/payment/payment-request.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import { withBatchedAccountReads } from "../settlement/batched-account-reads.ts";
import type { PaymentHandler, PaymentVerdict } from "./mode-policy.ts";
import { MODE_POLICIES } from "./mode-table.ts";
import { unknownModeHandler } from "./modes/extension-mode.ts";
import type { PaymentDeps } from "./payment-deps.ts";
import type { VerifyForSettlement } from "./settlement-candidate.ts";

/**
 * The payment pipeline's entry points. Every kind of payment, standard included, is one row of
 * MODE_POLICIES, and this is the one place that picks the row.
 */
const UNKNOWN_MODE = unknownModeHandler();

function handlerOf(payload: PaymentPayload): PaymentHandler {
  const mode = paymentModeOf(payload);
  return mode === null ? UNKNOWN_MODE : MODE_POLICIES[mode];
}

/**
 * POST /verify: every check of the payment's kind. Payment problems are refusals; only broken
 * infrastructure (the ledger or the store unreachable) throws.
 */
export function verifyPayment(request: PaymentRequest, deps: PaymentDeps): Promise<PaymentVerdict> {
  return handlerOf(request.paymentPayload).verify(request, deps);
}

/**
 * POST /settle's verification: the checks settlement needs, and the candidate it leads to. The
 * account reads of the settlements in flight share one getMultipleAccounts per batch.
 */
export function settlementVerifier(deps: PaymentDeps): VerifyForSettlement {
  const settleDeps: PaymentDeps = { ...deps, ledger: withBatchedAccountReads(deps.ledger) };
  return (request) => handlerOf(request.paymentPayload).settlementCandidate(request, settleDeps);
}

/** The settlement service's `replayKeyOf`: the key /settle may answer from before checking again (the mode's policy decides). */
export function replayKeyOf(deps: PaymentDeps): (request: PaymentRequest) => string | null {
  return (request) => handlerOf(request.paymentPayload).replayKey(request, deps);
}

/** The settlement service's `replayAuthorized`: the policy of the request's mode decides. */
export function replayAuthorized(deps: PaymentDeps): (request: PaymentRequest, record: SettlementRecord) => Promise<boolean> {
  return (request, record) => handlerOf(request.paymentPayload).replayAuthorized(request, record, deps);
}
