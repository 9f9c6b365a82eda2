import { describe, expect, test } from "bun:test";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { verifyPayment } from "../../../src/application/verify-payment.ts";
import { SOLANA_MAINNET } from "../../../src/domain/networks.ts";
import {
  ataOf,
  buildTransaction,
  computeLimit,
  computePrice,
  createActors,
  paymentRequest,
  requirementsFor,
  standardInstructions,
  transferInstruction,
} from "../../verification/support/payment-builder.ts";
import { verifyDeps } from "../../verification/support/verify-deps.ts";
import { expectRejected } from "../../adversarial/support.ts";

describe("a payment that does not pay what was asked (kit-built, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const requirements = requirementsFor(actors);
  const valid = await buildTransaction(actors);

  test("wrong amount is AMOUNT_MISMATCH stating expected and received", async () => {
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { amount: 999n }) });
    const result = await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "AMOUNT_MISMATCH");
    if (!result.ok) {
      expect(result.message).toContain("expected amount 1000");
      expect(result.message).toContain("received 999");
      expect(result.payer).toBe(actors.payer.address);
    }
  });

  test("wrong decimals in TransferChecked is AMOUNT_MISMATCH", async () => {
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { decimals: 9 }) });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "AMOUNT_MISMATCH");
  });

  test("wrong mint is MINT_MISMATCH", async () => {
    const otherMint = (await generateKeyPairSigner()).address;
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { mint: otherMint }) });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "MINT_MISMATCH");
  });

  test("wrong destination is RECIPIENT_MISMATCH", async () => {
    const thief = await generateKeyPairSigner();
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { destination: await ataOf(thief.address) }) });
    await expectRejected(paymentRequest(tx, requirements), verifyDeps(actors), "RECIPIENT_MISMATCH");
  });

  test("destination equal to payTo itself (a token account) passes", async () => {
    const tokenAccount = await ataOf(actors.payTo.address);
    const tx = await buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(1n), await transferInstruction(actors)] });
    const result = await verifyPayment(paymentRequest(tx, requirementsFor(actors, { payTo: tokenAccount })), verifyDeps(actors));
    expect(result.ok).toBe(true);
  });

  test("wrong network is UNSUPPORTED_NETWORK", async () => {
    const mainnet = requirementsFor(actors, { network: SOLANA_MAINNET });
    await expectRejected(paymentRequest(valid, mainnet), verifyDeps(actors), "UNSUPPORTED_NETWORK");
  });

  test("wrong scheme is UNSUPPORTED_SCHEME", async () => {
    const upto = requirementsFor(actors, { scheme: "upto" });
    await expectRejected(paymentRequest(valid, upto), verifyDeps(actors), "UNSUPPORTED_SCHEME");
  });

  test("an asset other than the supported mint is UNSUPPORTED_ASSET", async () => {
    const other = requirementsFor(actors, { asset: (await generateKeyPairSigner()).address as Address });
    await expectRejected(paymentRequest(valid, other), verifyDeps(actors), "UNSUPPORTED_ASSET");
  });

  for (const [field, change] of [
    ["amount", { amount: 1n }],
    ["payTo", { payTo: "11111111111111111111111111111111" }],
    ["network", { network: SOLANA_MAINNET }],
    ["scheme", { scheme: "upto" }],
    ["asset", { asset: "So11111111111111111111111111111111111111112" }],
  ] as const) {
    test(`accepted differing in ${field} is ACCEPTED_REQUIREMENTS_MISMATCH`, async () => {
      const accepted = requirementsFor(actors, change);
      const result = await expectRejected(paymentRequest(valid, requirements, { accepted }), verifyDeps(actors), "ACCEPTED_REQUIREMENTS_MISMATCH");
      if (!result.ok) expect(result.message).toContain(field);
    });
  }
});
