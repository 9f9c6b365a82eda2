import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { describe, expect, test } from "bun:test";
import { createAtaDeriver } from "../../../src/domain/payment/associated-token-account.ts";
import { REASON_CODES, isReasonCode } from "../../../src/domain/reason-codes.ts";
import { inspectTransaction } from "../../../src/domain/transaction/inspect-transaction.ts";
import { createVerificationPolicy, DEFAULT_VERIFICATION_POLICY } from "../../../src/domain/verification/verification-policy.ts";
import { ataOf, BLOCKHASH, buildTransaction, createActors, MEMO, USDC } from "../../../fixtures/payment-builder.ts";

describe("domain: inspectTransaction on a kit-built transaction (no mocks)", async () => {
  const actors = await createActors();
  const wire = await buildTransaction(actors);

  test("decodes fee payer, signature slots, accounts and every instruction's meaning", async () => {
    const inspected = inspectTransaction(wire);
    if (!inspected.ok) throw new Error(inspected.rejection.message);
    const view = inspected.view;
    expect(view.version).toBe(0);
    expect(view.feePayer).toBe(actors.feePayer.address);
    expect(view.signatureSlots.map((slot) => [slot.address, slot.signature === null])).toEqual([
      [actors.feePayer.address, true],
      [actors.payer.address, false],
    ]);
    expect(view.lookupTables).toEqual([]);
    expect(view.recentBlockhash).toBe(BLOCKHASH);
    expect(view.instructions.map((ix) => ix.meaning.kind)).toEqual(["compute-unit-limit", "compute-unit-price", "transfer-checked", "memo"]);
    expect(view.instructions[0]?.meaning).toEqual({ kind: "compute-unit-limit", units: 20_000 });
    expect(view.instructions[1]?.meaning).toEqual({ kind: "compute-unit-price", microLamports: 1n });
    expect(view.instructions[2]?.meaning).toEqual({
      kind: "transfer-checked",
      program: TOKEN_PROGRAM_ADDRESS,
      source: await ataOf(actors.payer.address),
      mint: USDC,
      destination: await ataOf(actors.payTo.address),
      authority: actors.payer.address,
      amount: 1_000n,
      decimals: 6,
      fee: null,
    });
    expect(view.instructions[3]?.programAddress).toBe(MEMO);
  });

  test("empty and non-base64 input are rejections, never exceptions", () => {
    expect(inspectTransaction("")).toMatchObject({ ok: false, rejection: { reason: "INVALID_TRANSACTION" } });
    expect(inspectTransaction("a b c")).toMatchObject({ ok: false, rejection: { reason: "INVALID_TRANSACTION" } });
    expect(inspectTransaction("A".repeat(100_000))).toMatchObject({ ok: false, rejection: { reason: "TRANSACTION_TOO_LARGE" } });
  });
});

describe("domain: ATA derivation cache (kit getProgramDerivedAddress, no mocks)", async () => {
  const actors = await createActors();

  test("derives the same address as @solana-program/token and stays bounded", async () => {
    const atas = createAtaDeriver({ capacity: 2 });
    expect(await atas.derive(actors.payTo.address, USDC)).toBe(await ataOf(actors.payTo.address));
    await atas.derive(actors.payer.address, USDC);
    await atas.derive(actors.feePayer.address, USDC);
    expect(atas.size()).toBe(2);
    // Evicted entries are derived again correctly.
    expect(await atas.derive(actors.payTo.address, USDC)).toBe(await ataOf(actors.payTo.address));
  });
});

describe("domain: policy and reason codes", () => {
  test("defaults match design.md and bad overrides are refused at boot", () => {
    expect(DEFAULT_VERIFICATION_POLICY).toEqual({
      maxComputeUnitLimit: 400_000,
      maxComputeUnitPriceMicroLamports: 5_000_000n,
      maxPriorityFeeLamports: 25_000n,
      maxInstructions: 8,
      maxTransactionBytes: 1232,
    });
    expect(() => createVerificationPolicy({ maxTransactionBytes: 5000 })).toThrow(RangeError);
    expect(() => createVerificationPolicy({ maxInstructions: 0 })).toThrow(RangeError);
    expect(() => createVerificationPolicy({ maxPriorityFeeLamports: -1n })).toThrow(RangeError);
    expect(Object.isFrozen(createVerificationPolicy())).toBe(true);
  });

  test("the reason code list is closed and includes the settlement and mode codes", () => {
    for (const code of ["ALREADY_SETTLED", "SETTLEMENT_FAILED", "MODE_INVALID", "DELEGATION_PROOF_EXPIRED"]) {
      expect(isReasonCode(code)).toBe(true);
    }
    expect(isReasonCode("invalid_exact_svm_payload_amount_mismatch")).toBe(false);
    expect(new Set(REASON_CODES).size).toBe(REASON_CODES.length);
  });
});
