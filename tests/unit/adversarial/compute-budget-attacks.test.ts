import { describe, expect, test } from "bun:test";
import { createVerificationPolicy } from "../../../src/domain/verification/verification-policy.ts";
import { buildTransaction, computeLimit, computePrice, memoInstruction, transferInstruction } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";
import { createVerifyBench } from "./support/verify-bench.ts";

describe("priority-fee drains through ComputeBudget (kit-built, hand-written fake ledger)", async () => {
  const { actors, expectRefused, expectPasses } = await createVerifyBench();
  const transfer = await transferInstruction(actors);

  test("a compute unit price over the cap is COMPUTE_UNIT_PRICE_TOO_HIGH", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(5_000_001n), transfer] });
    await expectRefused(tx, "COMPUTE_UNIT_PRICE_TOO_HIGH");
  });

  test("a price exactly at the cap passes when limit x price stays within the priority-fee cap", async () => {
    // 5,000 CU x 5,000,000 µlamports = 25,000 lamports: both caps met exactly.
    const tx = await buildTransaction(actors, { instructions: [computeLimit(5_000), computePrice(5_000_000n), transfer] });
    await expectPasses(tx);
  });

  test("limit and price each under their caps but 2,000,000 lamports together is PRIORITY_FEE_TOO_HIGH", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(400_000), computePrice(5_000_000n), transfer] });
    const result = await expectRefused(tx, "PRIORITY_FEE_TOO_HIGH");
    expect(result.ok ? "" : result.message).toContain("priority fee 2000000 lamports");
  });

  test("one lamport over the priority-fee cap is refused; the x84 client's 40,000 CU x 500,000 µlamports (20,000) passes", async () => {
    const over = await buildTransaction(actors, { instructions: [computeLimit(25_001), computePrice(1_000_000n), transfer] });
    await expectRefused(over, "PRIORITY_FEE_TOO_HIGH");
    const x84 = await buildTransaction(actors, { instructions: [computeLimit(40_000), computePrice(500_000n), transfer] });
    await expectPasses(x84);
  });

  test("the implicit compute limit is priced too: no SetComputeUnitLimit, a high price is PRIORITY_FEE_TOO_HIGH", async () => {
    // Implicit limit 200,000 CU (one non-budget instruction) x 1,000,000 µlamports = 200,000 lamports.
    const tx = await buildTransaction(actors, { instructions: [computePrice(1_000_000n), transfer] });
    await expectRefused(tx, "PRIORITY_FEE_TOO_HIGH");
  });

  test("a compute unit limit over the cap is COMPUTE_UNIT_LIMIT_TOO_HIGH", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(400_001), computePrice(1n), transfer] });
    await expectRefused(tx, "COMPUTE_UNIT_LIMIT_TOO_HIGH");
  });

  test("no SetComputeUnitLimit: the runtime's implicit limit counts against the cap", async () => {
    const memos = [memoInstruction("a"), memoInstruction("b")];
    const tx = await buildTransaction(actors, { instructions: [computePrice(1n), transfer, ...memos] });
    await expectRefused(tx, "COMPUTE_UNIT_LIMIT_TOO_HIGH");
  });

  test("a duplicate SetComputeUnitPrice is COMPUTE_BUDGET_INVALID", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(1n), computePrice(2n), transfer] });
    await expectRefused(tx, "COMPUTE_BUDGET_INVALID");
  });

  test("a duplicate SetComputeUnitLimit is COMPUTE_BUDGET_INVALID", async () => {
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computeLimit(10_000), transfer] });
    await expectRefused(tx, "COMPUTE_BUDGET_INVALID");
  });

  test("an unknown ComputeBudget instruction (RequestHeapFrame) is COMPUTE_BUDGET_INVALID", async () => {
    const heap = { ...computeLimit(20_000), data: new Uint8Array([1, 0, 0, 4, 0]) };
    const tx = await buildTransaction(actors, { instructions: [heap, computePrice(1n), transfer] });
    await expectRefused(tx, "COMPUTE_BUDGET_INVALID");
  });

  test("the caps come from the policy", async () => {
    const tight = createVerificationPolicy({ maxComputeUnitLimit: 10_000, maxComputeUnitPriceMicroLamports: 0n });
    const tx = await buildTransaction(actors);
    await expectRefused(tx, "COMPUTE_UNIT_LIMIT_TOO_HIGH", { deps: verifyDeps(actors, { policy: tight }) });
    const priceOnly = createVerificationPolicy({ maxComputeUnitPriceMicroLamports: 0n });
    await expectRefused(tx, "COMPUTE_UNIT_PRICE_TOO_HIGH", { deps: verifyDeps(actors, { policy: priceOnly }) });
  });
});
