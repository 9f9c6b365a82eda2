import { expect } from "bun:test";
import type { PaymentVerdict } from "../../src/application/payment/mode-policy.ts";
import type { PaymentDeps } from "../../src/application/payment/payment-deps.ts";
import { verifyPayment } from "../../src/application/payment/verify.ts";
import type { PaymentRequest } from "../../src/domain/payment/payment-request.ts";
import type { ReasonCode } from "../../src/domain/reason-codes.ts";

/** Verifies and asserts the exact reason code; returns the result for further assertions. */
export async function expectRejected(request: PaymentRequest, deps: PaymentDeps, reason: ReasonCode): Promise<PaymentVerdict> {
  const result = await verifyPayment(request, deps);
  expect(result.ok ? "VALID" : `${result.reason}`).toBe(reason);
  return result;
}

/** Verifies and asserts the payment passes (a control beside an attack); a refusal shows its reason and message. */
export async function expectAccepted(request: PaymentRequest, deps: PaymentDeps): Promise<PaymentVerdict> {
  const result = await verifyPayment(request, deps);
  expect(result.ok ? "VALID" : `${result.reason}: ${result.message}`).toBe("VALID");
  return result;
}
