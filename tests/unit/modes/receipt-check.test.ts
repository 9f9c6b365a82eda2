import { describe, expect, test } from "bun:test";
import { findReceiptPda } from "../../../src/domain/modes/mode-pdas.ts";
import { encodePaymentReceipt, type PaymentReceipt } from "../../../src/domain/modes/payment-receipt.ts";
import type { ReasonCode } from "../../../src/domain/reason-codes.ts";
import { checkReceiptAccount, checkReceiptAddress, type ReceiptExpectation } from "../../../src/domain/modes/receipt-check.ts";
import { PAYER, PAYMENT_ID, PAY_TO, PROGRAM_ID, TX_SIGNATURE, USDC, filled, receipt, testAddress } from "../../modes/support/mode-fixtures.ts";

const expected: ReceiptExpectation = {
  mode: "atomic",
  programId: PROGRAM_ID,
  paymentId: PAYMENT_ID,
  txSignature: TX_SIGNATURE,
  amount: 1_000_000n,
  asset: USDC,
  payTo: PAY_TO,
};

function account(value: PaymentReceipt, owner: string = PROGRAM_ID) {
  return { address: testAddress(90), owner, data: encodePaymentReceipt(value) };
}

describe("checkReceiptAccount (pure, receipts encoded with the domain codec)", () => {
  test("accepts a receipt that records exactly this payment", () => {
    const verdict = checkReceiptAccount(account(receipt()), expected);
    expect(verdict.ok && verdict.receipt.payer).toBe(PAYER);
  });

  test("accepts attestation mode for an Attestation receipt, with a matching extensions.payer", () => {
    const verdict = checkReceiptAccount(account(receipt({ settlementMode: "attestation" })), { ...expected, mode: "attestation", payer: PAYER });
    expect(verdict.ok).toBe(true);
  });

  const mismatches: [string, Partial<PaymentReceipt>, ReasonCode][] = [
    ["payment_id", { paymentId: filled(32, 9) }, "MODE_RECEIPT_MISMATCH"],
    ["tx_signature", { txSignature: filled(64, 9) }, "MODE_RECEIPT_MISMATCH"],
    ["settlement_mode (Attestation receipt for atomic)", { settlementMode: "attestation" }, "MODE_RECEIPT_MISMATCH"],
    ["amount", { amount: 999_999n }, "AMOUNT_MISMATCH"],
    ["token_mint", { tokenMint: testAddress(50) }, "MINT_MISMATCH"],
    ["payee", { payee: testAddress(51) }, "RECIPIENT_MISMATCH"],
  ];
  for (const [field, override, reason] of mismatches) {
    test(`refuses a receipt whose ${field} differs (${reason})`, () => {
      const verdict = checkReceiptAccount(account(receipt(override)), expected);
      expect(verdict.ok ? null : verdict.rejection.reason).toBe(reason);
    });
  }

  test("refuses a receipt whose payer differs from extensions.payer", () => {
    const verdict = checkReceiptAccount(account(receipt()), { ...expected, payer: testAddress(52) });
    expect(verdict.ok ? null : verdict.rejection.message).toContain("payer");
  });

  test("the receipt's resource must name the expected resource; its nft_mint must be extra.agentMint when given", () => {
    const ok = checkReceiptAccount(account(receipt({ resource: "/a2a", nftMint: testAddress(53) })), {
      ...expected,
      resource: "https://agent.example/a2a",
      agentMint: testAddress(53),
    });
    expect(ok.ok).toBe(true);
    const otherResource = checkReceiptAccount(account(receipt({ resource: "/mcp" })), { ...expected, resource: "https://agent.example/a2a" });
    expect(otherResource.ok ? null : otherResource.rejection.reason).toBe("MODE_RECEIPT_MISMATCH");
    const otherAgent = checkReceiptAccount(account(receipt()), { ...expected, agentMint: testAddress(54) });
    expect(otherAgent.ok ? null : otherAgent.rejection.message).toContain("nft_mint");
    expect(checkReceiptAccount(account(receipt()), { ...expected, agentMint: 7 }).ok).toBe(false);
  });

  test("refuses a valid-looking receipt owned by another program", () => {
    const verdict = checkReceiptAccount(account(receipt(), testAddress(60)), expected);
    expect(verdict.ok ? null : verdict.rejection.message).toContain("owned by");
  });

  test("refuses an account that is not a PaymentReceipt", () => {
    const verdict = checkReceiptAccount({ address: testAddress(90), owner: PROGRAM_ID, data: filled(300, 1) }, expected);
    expect(verdict.ok ? null : verdict.rejection.reason).toBe("MODE_RECEIPT_MISMATCH");
  });
});

describe("checkReceiptAddress (pure)", () => {
  test("a client-given receipt address must equal the derived one; absent is fine", async () => {
    const [derived] = await findReceiptPda(PROGRAM_ID, PAYMENT_ID);
    expect(checkReceiptAddress(undefined, derived)).toBeNull();
    expect(checkReceiptAddress(derived, derived)).toBeNull();
    expect(checkReceiptAddress(testAddress(1), derived)?.reason).toBe("MODE_RECEIPT_MISMATCH");
  });
});
