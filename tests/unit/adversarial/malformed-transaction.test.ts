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
import { verifyPayment } from "../../../src/application/verify-payment.ts";
import { createVerificationPolicy } from "../../../src/domain/verification/verification-policy.ts";
import {
  BLOCKHASH,
  buildTransaction,
  createActors,
  editWire,
  memoInstruction,
  paymentRequest,
  requirementsFor,
  standardInstructions,
} from "../../verification/support/payment-builder.ts";
import { verifyDeps } from "../../verification/support/verify-deps.ts";
import { expectRejected } from "../../adversarial/support.ts";

describe("malformed or oversized transactions (kit-built, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const requirements = requirementsFor(actors);
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
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "ADDRESS_LOOKUP_TABLE_NOT_ALLOWED");
  });

  test("not base64 is INVALID_TRANSACTION", async () => {
    await expectRejected(paymentRequest("%%%not-base64%%%", requirements), verifyDeps(actors), "INVALID_TRANSACTION");
  });

  test("base64 of garbage is INVALID_TRANSACTION", async () => {
    await expectRejected(paymentRequest(btoa("hello, world"), requirements), verifyDeps(actors), "INVALID_TRANSACTION");
  });

  test("a message missing its last byte is INVALID_TRANSACTION (never reaches the ledger)", async () => {
    const truncated = editWire(valid, (bytes) => bytes.subarray(0, bytes.length - 1));
    const deps = verifyDeps(actors);
    await expectRejected(paymentRequest(truncated, requirements), deps, "INVALID_TRANSACTION");
    expect(deps.ledger.calls.simulate).toBe(0);
  });

  test("trailing bytes after the message are INVALID_TRANSACTION", async () => {
    const padded = editWire(valid, (bytes) => Uint8Array.from([...bytes, 0]));
    await expectRejected(paymentRequest(padded, requirements), verifyDeps(actors), "INVALID_TRANSACTION");
  });

  test("a signature count that disagrees with the header is INVALID_TRANSACTION", async () => {
    const miscounted = editWire(valid, (bytes) => void (bytes[0] = 3));
    await expectRejected(paymentRequest(miscounted, requirements), verifyDeps(actors), "INVALID_TRANSACTION");
  });

  test("a missing transaction is INVALID_TRANSACTION", async () => {
    await expectRejected(paymentRequest(null, requirements), verifyDeps(actors), "INVALID_TRANSACTION");
  });

  test("a transaction over the size cap is TRANSACTION_TOO_LARGE", async () => {
    const small = createVerificationPolicy({ maxTransactionBytes: 300 });
    await expectRejected(paymentRequest(valid, requirements), verifyDeps(actors, { policy: small }), "TRANSACTION_TOO_LARGE");
  });

  test("a transaction over 1232 bytes is TRANSACTION_TOO_LARGE", async () => {
    const big = editWire(valid, (bytes) => Uint8Array.from([...bytes, ...new Uint8Array(1300)]));
    await expectRejected(paymentRequest(big, requirements), verifyDeps(actors), "TRANSACTION_TOO_LARGE");
  });

  test("a short memo in the last slot passes (control)", async () => {
    const instructions = await standardInstructions(actors);
    const tx = await buildTransaction(actors, { instructions: [...instructions.slice(0, 3), memoInstruction("ok")] });
    expect((await verifyPayment(paymentRequest(tx, requirements), verifyDeps(actors))).ok).toBe(true);
  });

  test("a memo listing a writable non-signer account is accepted only with valid signatures (control)", async () => {
    const instructions = await standardInstructions(actors);
    const memo = { ...memoInstruction("x"), accounts: [{ address: actors.payTo.address, role: AccountRole.WRITABLE }] };
    const tx = await buildTransaction(actors, { instructions: [...instructions.slice(0, 3), memo] });
    // The memo program would fail it on chain (accounts must sign); simulation is what catches it.
    const deps = verifyDeps(actors);
    deps.ledger.setSimulation({ ok: false, error: "InstructionError(3, MissingRequiredSignature)", logs: [] });
    await expectRejected(paymentRequest(tx, requirements), deps, "SIMULATION_FAILED");
  });
});
