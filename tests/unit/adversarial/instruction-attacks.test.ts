import { describe, test } from "bun:test";
import {
  getApproveInstruction,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferInstruction,
} from "@solana-program/token";
import { address } from "@solana/kit";
import {
  ataOf,
  buildTransaction,
  computeLimit,
  computePrice,
  createActors,
  memoInstruction,
  paymentRequest,
  requirementsFor,
  systemTransferInstruction,
  transferInstruction,
} from "../../verification/support/payment-builder.ts";
import { verifyDeps } from "../../verification/support/verify-deps.ts";
import { expectRejected } from "../../adversarial/support.ts";

describe("extra instructions that would spend someone's money (kit-built, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const requirements = requirementsFor(actors);
  const budget = [computeLimit(20_000), computePrice(1n)];

  test("a System transfer added is DISALLOWED_PROGRAM", async () => {
    const drain = systemTransferInstruction(actors.payer.address, actors.payTo.address, 1_000_000n);
    const tx = await buildTransaction(actors, { instructions: [...budget, await transferInstruction(actors), drain] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "DISALLOWED_PROGRAM");
  });

  test("an ATA create added (rent paid by someone) is DISALLOWED_PROGRAM", async () => {
    const create = getCreateAssociatedTokenIdempotentInstruction({
      payer: actors.payer,
      ata: await ataOf(actors.payTo.address),
      owner: actors.payTo.address,
      mint: address(requirements.asset),
    });
    const tx = await buildTransaction(actors, { instructions: [...budget, create, await transferInstruction(actors)] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "DISALLOWED_PROGRAM");
  });

  test("an Approve added is UNEXPECTED_TOKEN_INSTRUCTION", async () => {
    const approve = getApproveInstruction({
      source: await ataOf(actors.payer.address),
      delegate: actors.payTo.address,
      owner: actors.payer,
      amount: 1_000_000n,
    });
    const tx = await buildTransaction(actors, { instructions: [...budget, await transferInstruction(actors), approve] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "UNEXPECTED_TOKEN_INSTRUCTION");
  });

  test("a CloseAccount added is UNEXPECTED_TOKEN_INSTRUCTION", async () => {
    const close = getCloseAccountInstruction({
      account: await ataOf(actors.payer.address),
      destination: actors.payTo.address,
      owner: actors.payer,
    });
    const tx = await buildTransaction(actors, { instructions: [...budget, await transferInstruction(actors), close] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "UNEXPECTED_TOKEN_INSTRUCTION");
  });

  test("an unchecked Transfer instead of TransferChecked is UNEXPECTED_TOKEN_INSTRUCTION", async () => {
    const plain = getTransferInstruction({
      source: await ataOf(actors.payer.address),
      destination: await ataOf(actors.payTo.address),
      authority: actors.payer,
      amount: 1_000n,
    });
    const tx = await buildTransaction(actors, { instructions: [...budget, plain] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "UNEXPECTED_TOKEN_INSTRUCTION");
  });

  test("no transfer at all is TRANSFER_INSTRUCTION_COUNT", async () => {
    const tx = await buildTransaction(actors, { instructions: [...budget, memoInstruction()] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "TRANSFER_INSTRUCTION_COUNT");
  });

  test("two transfers are TRANSFER_INSTRUCTION_COUNT", async () => {
    const transfer = await transferInstruction(actors);
    const second = await transferInstruction(actors, { amount: 5n });
    const tx = await buildTransaction(actors, { instructions: [...budget, transfer, second] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "TRANSFER_INSTRUCTION_COUNT");
  });

  test("more instructions than the policy allows is TOO_MANY_INSTRUCTIONS", async () => {
    const memos = Array.from({ length: 6 }, (_, i) => memoInstruction(`m${i}`));
    const tx = await buildTransaction(actors, { instructions: [...budget, await transferInstruction(actors), ...memos] });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "TOO_MANY_INSTRUCTIONS");
  });
});
