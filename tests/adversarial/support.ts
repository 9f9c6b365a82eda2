import { expect } from "bun:test";
import { verifyPayment, type VerifyPaymentDeps, type VerifyPaymentResult } from "../../src/application/verify-payment.ts";
import type { PaymentRequest } from "../../src/domain/payment/payment-request.ts";
import type { ReasonCode } from "../../src/domain/reason-codes.ts";

/** Verifies and asserts the exact reason code; returns the result for further assertions. */
export async function expectRejected(request: PaymentRequest, deps: VerifyPaymentDeps, reason: ReasonCode): Promise<VerifyPaymentResult> {
  const result = await verifyPayment(request, deps);
  expect(result.ok ? "VALID" : `${result.reason}`).toBe(reason);
  return result;
}
