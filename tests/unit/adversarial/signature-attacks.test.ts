import { describe, test } from "bun:test";
import { AccountRole, generateKeyPairSigner, type AccountSignerMeta, type Instruction } from "@solana/kit";
import { buildTransaction, editWire, memoInstruction, transferInstruction } from "../../../fixtures/payment-builder.ts";
import { buildPaymentWith, createVerifyBench, withBudget } from "./support/verify-bench.ts";

/** Wire layout: [shortvec count=2][fee payer sig 64][payer sig 64][message]. */
const PAYER_SIGNATURE = { start: 1 + 64, end: 1 + 128 };

describe("payer signatures are verified cryptographically (kit-built, hand-written fake ledger)", async () => {
  const { actors, expectRefused } = await createVerifyBench();
  const valid = await buildTransaction(actors);

  test("a forged payer signature (one bit flipped) is PAYER_SIGNATURE_INVALID", async () => {
    const forged = editWire(valid, (bytes) => void (bytes[PAYER_SIGNATURE.start + 10] = (bytes[PAYER_SIGNATURE.start + 10] ?? 0) ^ 1));
    await expectRefused(forged, "PAYER_SIGNATURE_INVALID");
  });

  test("a zeroed payer signature is PAYER_SIGNATURE_INVALID", async () => {
    const zeroed = editWire(valid, (bytes) => void bytes.fill(0, PAYER_SIGNATURE.start, PAYER_SIGNATURE.end));
    await expectRefused(zeroed, "PAYER_SIGNATURE_INVALID");
  });

  test("a payer signature over a different message is PAYER_SIGNATURE_INVALID", async () => {
    const other = await buildPaymentWith(actors, memoInstruction("other"));
    const spliced = editWire(valid, (bytes) => {
      const donor = Uint8Array.from(atob(other), (c) => c.charCodeAt(0));
      bytes.set(donor.subarray(PAYER_SIGNATURE.start, PAYER_SIGNATURE.end), PAYER_SIGNATURE.start);
    });
    await expectRefused(spliced, "PAYER_SIGNATURE_INVALID");
  });

  test("an extra required signer, its signature missing or not, is TOO_MANY_SIGNATURES (each costs the fee payer 5,000 lamports)", async () => {
    const cosigner = await generateKeyPairSigner();
    // A memo that requires a second signer: build it signed, then zero that signer's slot (slot 2).
    const cosignerMeta: AccountSignerMeta = { address: cosigner.address, role: AccountRole.READONLY_SIGNER, signer: cosigner };
    const memo: Instruction = { ...memoInstruction("x"), accounts: [cosignerMeta] };
    const withCosigner = await buildPaymentWith(actors, memo);
    await expectRefused(withCosigner, "TOO_MANY_SIGNATURES");
    const stripped = editWire(withCosigner, (bytes) => void bytes.fill(0, 1 + 128, 1 + 192));
    await expectRefused(stripped, "TOO_MANY_SIGNATURES");
  });

  test("a transfer authority that is not a signer is PAYER_SIGNATURE_INVALID", async () => {
    const transfer = await transferInstruction(actors);
    const accounts = transfer.accounts ?? [];
    const readonlyAuthority: Instruction = {
      ...transfer,
      accounts: accounts.map((account, index) => (index === 3 ? { address: account.address, role: AccountRole.READONLY } : account)),
    };
    const tx = await buildTransaction(actors, { instructions: withBudget(readonlyAuthority) });
    await expectRefused(tx, "PAYER_SIGNATURE_INVALID");
  });
});
