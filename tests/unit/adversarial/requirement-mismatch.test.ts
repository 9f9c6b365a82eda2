import { describe, expect, test } from "bun:test";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { SOLANA_MAINNET } from "../../../src/domain/networks.ts";
import { ataOf, buildTransaction, requirementsFor, standardInstructions } from "../../../fixtures/payment-builder.ts";
import { buildPaymentWith, createVerifyBench } from "./support/verify-bench.ts";

describe("a payment that does not pay what was asked (kit-built, hand-written fake ledger)", async () => {
  const { actors, expectRefused, expectPasses } = await createVerifyBench();
  const valid = await buildTransaction(actors);

  test("wrong amount is AMOUNT_MISMATCH stating expected and received", async () => {
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { amount: 999n }) });
    const result = await expectRefused(tx, "AMOUNT_MISMATCH");
    if (!result.ok) {
      expect(result.message).toContain("expected amount 1000");
      expect(result.message).toContain("received 999");
      expect(result.payer).toBe(actors.payer.address);
    }
  });

  test("wrong decimals in TransferChecked is AMOUNT_MISMATCH", async () => {
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { decimals: 9 }) });
    await expectRefused(tx, "AMOUNT_MISMATCH");
  });

  test("wrong mint is MINT_MISMATCH", async () => {
    const otherMint = (await generateKeyPairSigner()).address;
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { mint: otherMint }) });
    await expectRefused(tx, "MINT_MISMATCH");
  });

  test("wrong destination is RECIPIENT_MISMATCH", async () => {
    const thief = await generateKeyPairSigner();
    const tx = await buildTransaction(actors, { instructions: await standardInstructions(actors, { destination: await ataOf(thief.address) }) });
    await expectRefused(tx, "RECIPIENT_MISMATCH");
  });

  test("destination equal to payTo itself (a token account) passes", async () => {
    const tokenAccount = await ataOf(actors.payTo.address);
    const tx = await buildPaymentWith(actors);
    await expectPasses(tx, { requirements: requirementsFor(actors, { payTo: tokenAccount }) });
  });

  test("wrong network is UNSUPPORTED_NETWORK", async () => {
    const mainnet = requirementsFor(actors, { network: SOLANA_MAINNET });
    await expectRefused(valid, "UNSUPPORTED_NETWORK", { requirements: mainnet });
  });

  test("wrong scheme is UNSUPPORTED_SCHEME", async () => {
    const upto = requirementsFor(actors, { scheme: "upto" });
    await expectRefused(valid, "UNSUPPORTED_SCHEME", { requirements: upto });
  });

  test("an asset other than the supported mint is UNSUPPORTED_ASSET", async () => {
    const other = requirementsFor(actors, { asset: (await generateKeyPairSigner()).address as Address });
    await expectRefused(valid, "UNSUPPORTED_ASSET", { requirements: other });
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
      const result = await expectRefused(valid, "ACCEPTED_REQUIREMENTS_MISMATCH", { accepted });
      if (!result.ok) expect(result.message).toContain(field);
    });
  }
});
