/**
 * The bench every unit adversarial file attacks: fresh kit actors, the requirements they pay,
 * and verification against the hand-written fake ledger. A test builds its attack transaction
 * and names the reason it expects; the bench supplies the request and dependencies around it.
 */
import type { Instruction } from "@solana/kit";
import type { PaymentVerdict } from "../../../../src/application/payment/mode-policy.ts";
import type { PaymentDeps } from "../../../../src/application/payment/payment-deps.ts";
import type { PaymentRequirements } from "../../../../src/domain/payment/payment-request.ts";
import type { ReasonCode } from "../../../../src/domain/reason-codes.ts";
import {
  type Actors,
  buildTransaction,
  computeLimit,
  computePrice,
  createActors,
  paymentRequest,
  requirementsFor,
  transferInstruction,
} from "../../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../../fixtures/verify-deps.ts";
import { expectAccepted, expectRejected } from "../../../adversarial/support.ts";

/** What one verification runs with, where a test departs from the bench's defaults. */
export type VerifyOptions = Readonly<{
  /** The requirements the payment is checked against (default: the bench's). */
  requirements?: PaymentRequirements;
  /** The payload's `accepted` (default: the requirements themselves). */
  accepted?: PaymentRequirements;
  /** The dependencies (default: `verifyDeps(actors)`, a fresh fake ledger and our one fee payer). */
  deps?: PaymentDeps;
}>;

export type VerifyBench = Readonly<{
  actors: Actors;
  requirements: PaymentRequirements;
  /** Verifies `transaction` and asserts the exact reason code; returns the result for further assertions. */
  expectRefused: (transaction: string | null, reason: ReasonCode, options?: VerifyOptions) => Promise<PaymentVerdict>;
  /** Verifies `transaction` and asserts it passes. */
  expectPasses: (transaction: string | null, options?: VerifyOptions) => Promise<PaymentVerdict>;
}>;

export async function createVerifyBench(): Promise<VerifyBench> {
  const actors = await createActors();
  const requirements = requirementsFor(actors);
  const requestFor = (transaction: string | null, options: VerifyOptions) =>
    paymentRequest(transaction, options.requirements ?? requirements, options.accepted ? { accepted: options.accepted } : {});
  return Object.freeze({
    actors,
    requirements,
    expectRefused: (transaction, reason, options = {}) =>
      expectRejected(requestFor(transaction, options), options.deps ?? verifyDeps(actors), reason),
    expectPasses: (transaction, options = {}) => expectAccepted(requestFor(transaction, options), options.deps ?? verifyDeps(actors)),
  });
}

/** The official client's compute budget (limit 20,000 CU, price 1 µlamport) followed by `instructions`. */
export function withBudget(...instructions: readonly Instruction[]): Instruction[] {
  return [computeLimit(20_000), computePrice(1n), ...instructions];
}

/** The official client's payment (budget, the payer's transfer) with `extra` instructions after the transfer, built and signed by the payer. */
export async function buildPaymentWith(actors: Actors, ...extra: readonly Instruction[]): Promise<string> {
  return buildTransaction(actors, { instructions: withBudget(await transferInstruction(actors), ...extra) });
}
