import type { ReasonCode } from "../../domain/reason-codes.ts";
import type { Rejection } from "../../domain/rejection.ts";

/**
 * Why the pipeline refuses a payment, for /verify (`invalidReason`) and /settle (`errorReason`)
 * alike: the one refusal type of every kind of payment and every step.
 */
export type PaymentRefusal = Readonly<{ ok: false; reason: ReasonCode; message: string; payer?: string }>;

export function refused(rejection: Rejection, payer?: string): PaymentRefusal {
  const { reason, message } = rejection;
  return Object.freeze(payer === undefined ? { ok: false, reason, message } : { ok: false, reason, message, payer });
}

export function isRejection(value: object): value is Rejection {
  return "reason" in value && "message" in value;
}
