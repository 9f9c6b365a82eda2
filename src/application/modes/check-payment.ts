import { parseModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { type PaymentRequest, settlementModeOf } from "../../domain/payment/payment-request.ts";
import type { ReasonCode } from "../../domain/reason-codes.ts";
import { modeSettlementKey } from "../../domain/settlement/mode-settlement-key.ts";
import { checkRequirements } from "../../domain/verification/requirement-checks.ts";
import type { Rejection } from "../../domain/verification/rejection.ts";
import { type VerifyPaymentDeps, checkPayTo, supportedKindOf, verifyPayment } from "../verify-payment.ts";
import { type ModeCheckDeps, type ModeVerificationResult, checkModePayment } from "./check-mode-payment.ts";
import { modeRejected } from "./mode-result.ts";

export type PaymentCheckDeps = VerifyPaymentDeps & Omit<ModeCheckDeps, "feePayers" | "ledger" | "atas">;

export type PaymentCheckResult = Readonly<{ ok: true; payer: string }> | Readonly<{ ok: false; reason: ReasonCode; message: string; payer?: string }>;

/**
 * /verify for every kind of payment: the standard transaction rules, or, when
 * `extensions.mode` is set, the requirement checks plus that mode's checks.
 */
export async function checkPayment(request: PaymentRequest, deps: PaymentCheckDeps): Promise<PaymentCheckResult> {
  if (settlementModeOf(request.paymentPayload) === undefined) return verifyPayment(request, deps);
  // Checked first: once paid, a delegated payment's allowance and proof window no longer hold,
  // and the truthful answer is that it was settled.
  const key = modeRecordKeyOf(request);
  if (key && deps.settledLookup && (await deps.settledLookup(key, null))) {
    return { ok: false, reason: "ALREADY_SETTLED", message: "this paymentId was already settled" };
  }
  return checkModeRequest(request, deps);
}

/** Requirement checks (scheme, network, asset, amount, `accepted`, payTo policy) first, then the mode's own checks. */
export async function checkModeRequest(request: PaymentRequest, deps: PaymentCheckDeps): Promise<ModeVerificationResult> {
  const problem = await checkModeRequirements(request, deps);
  return problem ? modeRejected(problem) : checkModePayment(request, deps);
}

/** What a mode request shares with a standard one: the requirement checks and the payTo policy. */
export async function checkModeRequirements(request: PaymentRequest, deps: PaymentCheckDeps): Promise<Rejection | null> {
  return (
    checkRequirements(request.paymentPayload, request.paymentRequirements, supportedKindOf(deps)) ??
    (await checkPayTo(request.paymentRequirements.payTo, deps.payToPolicy))
  );
}

/** The key a mode request would be recorded under, without touching the ledger; null if malformed. */
export function modeRecordKeyOf(request: PaymentRequest): string | null {
  if (settlementModeOf(request.paymentPayload) === undefined) return null;
  const parsed = parseModeExtensions(request.paymentPayload.extensions);
  return "reason" in parsed ? null : modeSettlementKey(parsed.mode, parsed.paymentIdHex);
}
