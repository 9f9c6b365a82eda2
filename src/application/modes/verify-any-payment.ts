import { parseModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { type PaymentRequest, settlementModeOf } from "../../domain/payment/payment-request.ts";
import type { ReasonCode } from "../../domain/reason-codes.ts";
import { modeSettlementKey } from "../../domain/settlement/mode-settlement-key.ts";
import { checkRequirements } from "../../domain/verification/requirement-checks.ts";
import { type VerifyPaymentDeps, checkPayTo, verifyPayment } from "../verify-payment.ts";
import { type ModeVerificationResult, type VerifyModeDeps, verifyModePayment } from "./verify-mode-payment.ts";

export type VerifyAnyDeps = VerifyPaymentDeps & Omit<VerifyModeDeps, "feePayers" | "ledger" | "atas">;

export type VerifyAnyResult = Readonly<{ ok: true; payer: string }> | Readonly<{ ok: false; reason: ReasonCode; message: string; payer?: string }>;

/**
 * /verify for every kind of payment: the standard transaction rules, or, when
 * `extensions.mode` is set, the requirement checks plus that mode's checks.
 */
export async function verifyAnyPayment(request: PaymentRequest, deps: VerifyAnyDeps): Promise<VerifyAnyResult> {
  if (settlementModeOf(request.paymentPayload) === undefined) return verifyPayment(request, deps);
  // Checked first: once paid, a delegated payment's allowance and proof window no longer hold,
  // and the truthful answer is that it was settled.
  const key = modeRecordKeyOf(request);
  if (key && deps.settledLookup && (await deps.settledLookup(key, null))) {
    return { ok: false, reason: "ALREADY_SETTLED", message: "this paymentId was already settled" };
  }
  return verifyModeRequest(request, deps);
}

/** Requirement checks (scheme, network, asset, amount, `accepted`, payTo policy) first, then the mode's own checks. */
export async function verifyModeRequest(request: PaymentRequest, deps: VerifyAnyDeps): Promise<ModeVerificationResult> {
  const problem =
    checkRequirements(request.paymentPayload, request.paymentRequirements, { network: deps.network, assets: deps.assets ?? [deps.asset] }) ??
    (await checkPayTo(request.paymentRequirements.payTo, deps.payToPolicy));
  if (problem) return { ok: false, reason: problem.reason, message: problem.message };
  return verifyModePayment(request, {
    ledger: deps.ledger,
    clock: deps.clock,
    programId: deps.programId,
    feePayers: deps.feePayers,
    ...(deps.atas ? { atas: deps.atas } : {}),
  });
}

/** The key a mode request would be recorded under, without touching the ledger; null if malformed. */
export function modeRecordKeyOf(request: PaymentRequest): string | null {
  if (settlementModeOf(request.paymentPayload) === undefined) return null;
  const parsed = parseModeExtensions(request.paymentPayload.extensions);
  return "reason" in parsed ? null : modeSettlementKey(parsed.mode, parsed.paymentIdHex);
}

/**
 * The key under which /settle may answer a mode request from a settled record WITHOUT
 * verifying it again (the settlement service's `replayKeyOf`); null when it must be verified.
 *
 * Delegated: its record key, because once paid the proof window and the allowance no longer hold.
 * Atomic and attestation: always null. SECURITY: their paymentId and txSignature are public on
 * chain, so answering from the record before verification would hand the payer's success to
 * anyone who copies them. They are verified again, claim proof included (the payer can sign a
 * fresh one at any time), and a verified repeat is then answered from the record as a replay.
 */
export function modeKeyOf(request: PaymentRequest): string | null {
  const mode = settlementModeOf(request.paymentPayload);
  if (mode === "atomic" || mode === "attestation") return null;
  return modeRecordKeyOf(request);
}
