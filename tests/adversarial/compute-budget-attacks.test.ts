import { describe, expect, test } from "bun:test";
import { verifyPayment } from "../../src/application/verify-payment.ts";
import { createVerificationPolicy } from "../../src/domain/verification/verification-policy.ts";
import {
  buildTransaction,
  computeLimit,
  computePrice,
  createActors,
  memoInstruction,
  paymentRequest,
  requirementsFor,
  transferInstruction,
} from "../verification/support/payment-builder.ts";
import { verifyDeps } from "../verification/support/verify-deps.ts";
import { expectRejected } from "./support.ts";

describe("priority-fee drains through ComputeBudget (kit-built, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const requirements = requirementsFor(actors);
  const transfer = await transferInstruction(actors);

  test("a compute unit price over the cap is COMPUTE_UNIT_PRICE_TOO_HIGH", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(5_000_001n), transfer] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "COMPUTE_UNIT_PRICE_TOO_HIGH");
  });

  test("a price exactly at the cap passes", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(5_000_000n), transfer] });
    expect((await verifyPayment(paymentRequest(tx, requirements), verifyDeps(actors))).ok).toBe(true);
  });

  test("a compute unit limit over the cap is COMPUTE_UNIT_LIMIT_TOO_HIGH", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(400_001), computePrice(1n), transfer] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "COMPUTE_UNIT_LIMIT_TOO_HIGH");
  });

  test("no SetComputeUnitLimit: the runtime's implicit limit counts against the cap", async () => {
    const memos = [memoInstruction("a"), memoInstruction("b")];
    const tx = await buildTransaction(actors, { instructions: [computePrice(1n), transfer, ...memos] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "COMPUTE_UNIT_LIMIT_TOO_HIGH");
  });

  test("a duplicate SetComputeUnitPrice is COMPUTE_BUDGET_INVALID", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(1n), computePrice(2n), transfer] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "COMPUTE_BUDGET_INVALID");
  });

  test("a duplicate SetComputeUnitLimit is COMPUTE_BUDGET_INVALID", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computeLimit(10_000), transfer] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "COMPUTE_BUDGET_INVALID");
  });

  test("an unknown ComputeBudget instruction (RequestHeapFrame) is COMPUTE_BUDGET_INVALID", async () => {
    const heap = { ...computeLimit(20_000), data: new Uint8Array([1, 0, 0, 4, 0]) };
    const tx = await buildTransaction(actors, { instructions: [heap, computePrice(1n), transfer] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "COMPUTE_BUDGET_INVALID");
  });

  test("the caps come from the policy", async () => {
    const tight = createVerificationPolicy({ maxComputeUnitLimit: 10_000, maxComputeUnitPriceMicroLamports: 0n });
    const tx = await buildTransaction(actors);
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors, { policy: tight }), "COMPUTE_UNIT_LIMIT_TOO_HIGH");
    const priceOnly = createVerificationPolicy({ maxComputeUnitPriceMicroLamports: 0n });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors, { policy: priceOnly }), "COMPUTE_UNIT_PRICE_TOO_HIGH");
  });
});
