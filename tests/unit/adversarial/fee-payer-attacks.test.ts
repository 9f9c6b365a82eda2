import { describe, test } from "bun:test";
import { generateKeyPairSigner } from "@solana/kit";
import { ataOf, buildTransaction, editWire, memoInstruction, requirementsFor, transferInstruction } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";
import { buildPaymentWith, createVerifyBench, withBudget } from "./support/verify-bench.ts";

describe("attacks on the fee payer (kit-built transactions, hand-written fake ledger)", async () => {
  const { actors, expectRefused, expectPasses } = await createVerifyBench();

  test("fee payer as transfer authority with an empty fee-payer slot is FEE_PAYER_IN_INSTRUCTION", async () => {
    const transfer = await transferInstruction(actors, { authority: actors.feePayer });
    const unsigned = await buildTransaction(actors, { instructions: withBudget(transfer) });
    // kit signs slot 0 because the authority signer is the fee payer; zero it so the slot looks empty.
    const tx = editWire(unsigned, (bytes) => void bytes.fill(0, 1, 65));
    await expectRefused(tx, "FEE_PAYER_IN_INSTRUCTION");
  });

  test("fee payer as transfer source (its own token account) is FEE_PAYER_IN_INSTRUCTION", async () => {
    const transfer = await transferInstruction(actors, { source: actors.feePayer.address });
    const tx = await buildTransaction(actors, { instructions: withBudget(transfer, memoInstruction()) });
    await expectRefused(tx, "FEE_PAYER_IN_INSTRUCTION");
  });

  test("fee payer hidden as an extra account of a memo is FEE_PAYER_IN_INSTRUCTION", async () => {
    const tx = await buildPaymentWith(actors, memoInstruction("x", [actors.feePayer.address]));
    await expectRefused(tx, "FEE_PAYER_IN_INSTRUCTION");
  });

  test("another of our fee payers hidden in an instruction is FEE_PAYER_IN_INSTRUCTION", async () => {
    const second = await generateKeyPairSigner();
    const bothFeePayers = () => verifyDeps(actors, { feePayers: () => [actors.feePayer.address, second.address] });
    const tx = await buildPaymentWith(actors, memoInstruction("x", [await ataOf(second.address)]));
    // Control: the second signer's token account is harmless; its own address is not.
    await expectPasses(tx, { deps: bothFeePayers() });
    const hidden = await buildPaymentWith(actors, memoInstruction("x", [second.address]));
    await expectRefused(hidden, "FEE_PAYER_IN_INSTRUCTION", { deps: bothFeePayers() });
  });

  test("pre-filled fee-payer signature is ALREADY_SIGNED", async () => {
    const tx = await buildTransaction(actors, { signAsFeePayer: true });
    await expectRefused(tx, "ALREADY_SIGNED");
  });

  test("a fee payer that is not ours is FEE_PAYER_MISMATCH", async () => {
    const stranger = await generateKeyPairSigner();
    const tx = await buildTransaction(actors, { feePayerAddress: stranger.address });
    await expectRefused(tx, "FEE_PAYER_MISMATCH", { requirements: requirementsFor(actors, { extra: {} }) });
  });

  test("a fee payer other than the one in extra.feePayer is FEE_PAYER_MISMATCH", async () => {
    const second = await generateKeyPairSigner();
    const tx = await buildTransaction(actors);
    await expectRefused(tx, "FEE_PAYER_MISMATCH", {
      requirements: requirementsFor(actors, { extra: { feePayer: second.address } }),
      deps: verifyDeps(actors, { feePayers: () => [actors.feePayer.address, second.address] }),
    });
  });
});
