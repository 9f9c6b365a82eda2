import { describe, test } from "bun:test";
import {
  getApproveInstruction,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferInstruction,
} from "@solana-program/token";
import { address } from "@solana/kit";
import { ataOf, buildTransaction, memoInstruction, systemTransferInstruction, transferInstruction } from "../../../fixtures/payment-builder.ts";
import { buildPaymentWith, createVerifyBench, withBudget } from "./support/verify-bench.ts";

describe("extra instructions that would spend someone's money (kit-built, hand-written fake ledger)", async () => {
  const { actors, requirements, expectRefused } = await createVerifyBench();

  test("a System transfer added is DISALLOWED_PROGRAM", async () => {
    const drain = systemTransferInstruction(actors.payer.address, actors.payTo.address, 1_000_000n);
    const tx = await buildPaymentWith(actors, drain);
    await expectRefused(tx, "DISALLOWED_PROGRAM");
  });

  test("an ATA create added (rent paid by someone) is DISALLOWED_PROGRAM", async () => {
    const create = getCreateAssociatedTokenIdempotentInstruction({
      payer: actors.payer,
      ata: await ataOf(actors.payTo.address),
      owner: actors.payTo.address,
      mint: address(requirements.asset),
    });
    const tx = await buildTransaction(actors, { instructions: withBudget(create, await transferInstruction(actors)) });
    await expectRefused(tx, "DISALLOWED_PROGRAM");
  });

  test("an Approve added is UNEXPECTED_TOKEN_INSTRUCTION", async () => {
    const approve = getApproveInstruction({
      source: await ataOf(actors.payer.address),
      delegate: actors.payTo.address,
      owner: actors.payer,
      amount: 1_000_000n,
    });
    const tx = await buildPaymentWith(actors, approve);
    await expectRefused(tx, "UNEXPECTED_TOKEN_INSTRUCTION");
  });

  test("a CloseAccount added is UNEXPECTED_TOKEN_INSTRUCTION", async () => {
    const close = getCloseAccountInstruction({
      account: await ataOf(actors.payer.address),
      destination: actors.payTo.address,
      owner: actors.payer,
    });
    const tx = await buildPaymentWith(actors, close);
    await expectRefused(tx, "UNEXPECTED_TOKEN_INSTRUCTION");
  });

  test("an unchecked Transfer instead of TransferChecked is UNEXPECTED_TOKEN_INSTRUCTION", async () => {
    const plain = getTransferInstruction({
      source: await ataOf(actors.payer.address),
      destination: await ataOf(actors.payTo.address),
      authority: actors.payer,
      amount: 1_000n,
    });
    const tx = await buildTransaction(actors, { instructions: withBudget(plain) });
    await expectRefused(tx, "UNEXPECTED_TOKEN_INSTRUCTION");
  });

  test("no transfer at all is TRANSFER_INSTRUCTION_COUNT", async () => {
    const tx = await buildTransaction(actors, { instructions: withBudget(memoInstruction()) });
    await expectRefused(tx, "TRANSFER_INSTRUCTION_COUNT");
  });

  test("two transfers without a configured protocol-fee split are PROTOCOL_FEE_MISMATCH (issue 25: its own reason, not the count)", async () => {
    const transfer = await transferInstruction(actors);
    const second = await transferInstruction(actors, { amount: 5n });
    const tx = await buildTransaction(actors, { instructions: withBudget(transfer, second) });
    await expectRefused(tx, "PROTOCOL_FEE_MISMATCH");
  });

  test("more instructions than the policy allows is TOO_MANY_INSTRUCTIONS", async () => {
    const memos = Array.from({ length: 6 }, (_, i) => memoInstruction(`m${i}`));
    const tx = await buildPaymentWith(actors, ...memos);
    await expectRefused(tx, "TOO_MANY_INSTRUCTIONS");
  });
});
