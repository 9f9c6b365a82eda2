import { describe, expect, test } from "bun:test";
import { AccountRole, address, compressTransactionMessageUsingAddressLookupTables, type Address } from "@solana/kit";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { createVerificationPolicy } from "../../../src/domain/verification/verification-policy.ts";
import { BLOCKHASH, buildTransaction, editWire, memoInstruction, standardInstructions } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";
import { createVerifyBench } from "./support/verify-bench.ts";

describe("malformed or oversized transactions (kit-built, hand-written fake ledger)", async () => {
  const { actors, requirements, expectRefused, expectPasses } = await createVerifyBench();
  const valid = await buildTransaction(actors);

  test("an address lookup table is ADDRESS_LOOKUP_TABLE_NOT_ALLOWED", async () => {
    const lookupTable = address("AddressLookupTab1e1111111111111111111111111");
    const instructions = await standardInstructions(actors);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(actors.feePayer.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 1000n }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    // The mint (a read-only non-signer) moves into the lookup table: invisible to account rules.
    const compressed = compressTransactionMessageUsingAddressLookupTables(message, { [lookupTable]: [requirements.asset as Address] });
    const tx = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(compressed));
    await expectRefused(tx, "ADDRESS_LOOKUP_TABLE_NOT_ALLOWED");
  });

  test("not base64 is INVALID_TRANSACTION", async () => {
    await expectRefused("%%%not-base64%%%", "INVALID_TRANSACTION");
  });

  test("base64 of garbage is INVALID_TRANSACTION", async () => {
    await expectRefused(btoa("hello, world"), "INVALID_TRANSACTION");
  });

  test("a message missing its last byte is INVALID_TRANSACTION (never reaches the ledger)", async () => {
    const truncated = editWire(valid, (bytes) => bytes.subarray(0, bytes.length - 1));
    const deps = verifyDeps(actors);
    await expectRefused(truncated, "INVALID_TRANSACTION", { deps });
    expect(deps.ledger.calls.simulate).toBe(0);
  });

  test("trailing bytes after the message are INVALID_TRANSACTION", async () => {
    const padded = editWire(valid, (bytes) => Uint8Array.from([...bytes, 0]));
    await expectRefused(padded, "INVALID_TRANSACTION");
  });

  test("a signature count that disagrees with the header is INVALID_TRANSACTION", async () => {
    const miscounted = editWire(valid, (bytes) => void (bytes[0] = 3));
    await expectRefused(miscounted, "INVALID_TRANSACTION");
  });

  test("a missing transaction is INVALID_TRANSACTION", async () => {
    await expectRefused(null, "INVALID_TRANSACTION");
  });

  test("a transaction over the size cap is TRANSACTION_TOO_LARGE", async () => {
    const small = createVerificationPolicy({ maxTransactionBytes: 300 });
    await expectRefused(valid, "TRANSACTION_TOO_LARGE", { deps: verifyDeps(actors, { policy: small }) });
  });

  test("a transaction over 1232 bytes is TRANSACTION_TOO_LARGE", async () => {
    const big = editWire(valid, (bytes) => Uint8Array.from([...bytes, ...new Uint8Array(1300)]));
    await expectRefused(big, "TRANSACTION_TOO_LARGE");
  });

  test("a short memo in the last slot passes (control)", async () => {
    const instructions = await standardInstructions(actors);
    const tx = await buildTransaction(actors, { instructions: [...instructions.slice(0, 3), memoInstruction("ok")] });
    await expectPasses(tx);
  });

  test("a memo listing a writable non-signer account is accepted only with valid signatures (control)", async () => {
    const instructions = await standardInstructions(actors);
    const memo = { ...memoInstruction("x"), accounts: [{ address: actors.payTo.address, role: AccountRole.WRITABLE }] };
    const tx = await buildTransaction(actors, { instructions: [...instructions.slice(0, 3), memo] });
    // The memo program would fail it on chain (accounts must sign); simulation is what catches it.
    const deps = verifyDeps(actors);
    deps.ledger.setSimulation({ ok: false, error: "InstructionError(3, MissingRequiredSignature)", logs: [] });
    await expectRefused(tx, "SIMULATION_FAILED", { deps });
  });
});
