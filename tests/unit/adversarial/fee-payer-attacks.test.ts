import { describe, expect, test } from "bun:test";
import { generateKeyPairSigner } from "@solana/kit";
import { verifyPayment } from "../../../src/application/verify-payment.ts";
import {
  ataOf,
  buildTransaction,
  computeLimit,
  computePrice,
  createActors,
  editWire,
  memoInstruction,
  paymentRequest,
  requirementsFor,
  transferInstruction,
} from "../../verification/support/payment-builder.ts";
import { verifyDeps } from "../../verification/support/verify-deps.ts";
import { expectRejected } from "../../adversarial/support.ts";

describe("attacks on the fee payer (kit-built transactions, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const requirements = requirementsFor(actors);

  test("fee payer as transfer authority with an empty fee-payer slot is FEE_PAYER_IN_INSTRUCTION", async () => {
    const transfer = await transferInstruction(actors, { authority: actors.feePayer });
    const unsigned = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(1n), transfer] });
    // kit signs slot 0 because the authority signer is the fee payer; zero it so the slot looks empty.
    const tx = editWire(unsigned, (bytes) => void bytes.fill(0, 1, 65));
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "FEE_PAYER_IN_INSTRUCTION");
  });

  test("fee payer as transfer source (its own token account) is FEE_PAYER_IN_INSTRUCTION", async () => {
    const transfer = await transferInstruction(actors, { source: actors.feePayer.address });
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(1n), transfer, memoInstruction()] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "FEE_PAYER_IN_INSTRUCTION");
  });

  test("fee payer hidden as an extra account of a memo is FEE_PAYER_IN_INSTRUCTION", async () => {
    const tx = await buildTransaction(actors, {
      instructions: [computeLimit(20_000), computePrice(1n), await transferInstruction(actors), memoInstruction("x", [actors.feePayer.address])],
    });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "FEE_PAYER_IN_INSTRUCTION");
  });

  test("another of our fee payers hidden in an instruction is FEE_PAYER_IN_INSTRUCTION", async () => {
    const second = await generateKeyPairSigner();
    const tx = await buildTransaction(actors, {
      instructions: [computeLimit(20_000), computePrice(1n), await transferInstruction(actors), memoInstruction("x", [await ataOf(second.address)])],
    });
    // Control: the second signer's token account is harmless; its own address is not.
    const control = await verifyPayment(paymentRequest(tx, requirements), verifyDeps(actors, { feePayers: [actors.feePayer.address, second.address] }));
    expect(control.ok).toBe(true);
    const hidden = await buildTransaction(actors, {
      instructions: [computeLimit(20_000), computePrice(1n), await transferInstruction(actors), memoInstruction("x", [second.address])],
    });
    await expectRejected(
      paymentRequest(hidden, requirements),
      verifyDeps(actors, { feePayers: [actors.feePayer.address, second.address] }),
      "FEE_PAYER_IN_INSTRUCTION",
    );
  });

  test("pre-filled fee-payer signature is ALREADY_SIGNED", async () => {
    const tx = await buildTransaction(actors, { signAsFeePayer: true });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "ALREADY_SIGNED");
  });

  test("a fee payer that is not ours is FEE_PAYER_MISMATCH", async () => {
    const stranger = await generateKeyPairSigner();
    const tx = await buildTransaction(actors, { feePayerAddress: stranger.address });
    await expectRejected(paymentRequest(tx, requirementsFor(actors, { extra: {} })), verifyDeps(actors), "FEE_PAYER_MISMATCH");
  });

  test("a fee payer other than the one in extra.feePayer is FEE_PAYER_MISMATCH", async () => {
    const second = await generateKeyPairSigner();
    const tx = await buildTransaction(actors);
    await expectRejected(
      paymentRequest(tx, requirementsFor(actors, { extra: { feePayer: second.address } })),
      verifyDeps(actors, { feePayers: [actors.feePayer.address, second.address] }),
      "FEE_PAYER_MISMATCH",
    );
  });
});
