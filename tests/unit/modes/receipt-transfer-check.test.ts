import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { checkReceiptTransfer, type ReceiptTransfer } from "../../../src/domain/modes/receipt-transfer-check.ts";
import { expectedResourceOf, receiptResourceMatches } from "../../../src/domain/modes/receipt-resource.ts";
import { balanceChangeOf, tokenBalanceChanges } from "../../../src/domain/modes/token-balance-changes.ts";
import { PAYER, PAY_TO, TREASURY, TX_SIGNATURE, USDC, modeRequest, testAddress } from "../../modes/support/mode-fixtures.ts";

const OTHER = testAddress(80);

describe("tokenBalanceChanges (pure)", () => {
  test("sums post - pre by owner and mint, over several token accounts of one owner", () => {
    const changes = tokenBalanceChanges(
      [
        { owner: PAYER, mint: USDC, amount: 5n },
        { owner: PAYER, mint: USDC, amount: 7n },
        { owner: PAY_TO, mint: USDC, amount: 0n },
      ],
      [
        { owner: PAYER, mint: USDC, amount: 2n },
        { owner: PAYER, mint: USDC, amount: 6n },
        { owner: PAY_TO, mint: USDC, amount: 4n },
      ],
    );
    expect(balanceChangeOf(changes, PAYER, USDC)).toBe(-4n);
    expect(balanceChangeOf(changes, PAY_TO, USDC)).toBe(4n);
    expect(balanceChangeOf(changes, TREASURY, USDC)).toBe(0n);
  });

  test("an account created, closed or handed to another owner inside the transaction counts on each side", () => {
    const changes = tokenBalanceChanges(
      [{ owner: PAYER, mint: USDC, amount: 9n }, { owner: OTHER, mint: USDC, amount: 0n }],
      [{ owner: PAY_TO, mint: USDC, amount: 9n }, { owner: TREASURY, mint: USDC, amount: 1n }],
    );
    expect(balanceChangeOf(changes, PAYER, USDC)).toBe(-9n);
    expect(balanceChangeOf(changes, PAY_TO, USDC)).toBe(9n);
    expect(balanceChangeOf(changes, TREASURY, USDC)).toBe(1n);
    expect(changes.find((c) => c.owner === OTHER)?.delta).toBe(0n);
  });
});

describe("checkReceiptTransfer (pure)", () => {
  const expected: ReceiptTransfer = { txSignature: TX_SIGNATURE, payer: PAYER, payTo: PAY_TO, asset: USDC, amount: 1_000n, feeAmount: 10n };
  const effects = (payer: bigint, payTo: bigint, err: string | null = null) => ({
    err,
    tokenBalanceChanges: [
      { owner: PAYER as Address, mint: USDC, delta: payer },
      { owner: PAY_TO as Address, mint: USDC, delta: payTo },
    ],
  });

  test("passes when the payer paid exactly amount and payTo got exactly amount - fee", () => {
    expect(checkReceiptTransfer(effects(-1_000n, 990n), expected)).toBeNull();
  });

  test("refuses an unknown or failed transaction, and any other amount on either side", () => {
    expect(checkReceiptTransfer(null, expected)?.reason).toBe("MODE_TX_NOT_FOUND");
    expect(checkReceiptTransfer(effects(-1_000n, 990n, "InsufficientFundsForFee"), expected)?.reason).toBe("MODE_TX_FAILED");
    for (const [payer, payTo] of [[-999n, 990n], [-1_001n, 990n], [-1_000n, 989n], [-1_000n, 991n], [0n, 0n]] as const) {
      expect(checkReceiptTransfer(effects(payer, payTo), expected)?.reason).toBe("MODE_TRANSFER_MISMATCH");
    }
    expect(checkReceiptTransfer(effects(-1_000n, 990n), { ...expected, asset: testAddress(81) })?.reason).toBe("MODE_TRANSFER_MISMATCH");
    expect(checkReceiptTransfer(effects(-1_000n, 990n), { ...expected, feeAmount: 1_001n })?.reason).toBe("MODE_RECEIPT_MISMATCH");
  });
});

describe("the receipt's resource (pure)", () => {
  test("expectedResourceOf: requirements.resource, else paymentPayload.resource.url, else null; empty strings count as unset", () => {
    const request = modeRequest({});
    expect(expectedResourceOf(request)).toBeNull();
    const withPayload = { ...request, paymentPayload: { ...request.paymentPayload, resource: { url: "https://a.example/x" } } };
    expect(expectedResourceOf(withPayload)).toBe("https://a.example/x");
    expect(expectedResourceOf({ ...withPayload, paymentRequirements: { ...request.paymentRequirements, resource: "https://a.example/y" } })).toBe("https://a.example/y");
    expect(expectedResourceOf({ ...withPayload, paymentRequirements: { ...request.paymentRequirements, resource: "" } })).toBe("https://a.example/x");
  });

  test("receiptResourceMatches: exact, or a receipt path equal to the expected URL's pathname", () => {
    expect(receiptResourceMatches("https://a.example/x", "https://a.example/x")).toBe(true);
    expect(receiptResourceMatches("/a2a", "https://agent.example/a2a")).toBe(true);
    expect(receiptResourceMatches("/a2a", "https://agent.example/a2a?session=1")).toBe(true);
    expect(receiptResourceMatches("/a2a", "/a2a")).toBe(true);
    expect(receiptResourceMatches("/a2a", "https://agent.example/a2a/")).toBe(false);
    expect(receiptResourceMatches("/a2a", "https://agent.example/mcp")).toBe(false);
    expect(receiptResourceMatches("/a2a", "/mcp")).toBe(false);
    expect(receiptResourceMatches("a2a", "https://agent.example/a2a")).toBe(false);
    // The reverse is not accepted: an absolute receipt resource must match exactly.
    expect(receiptResourceMatches("https://agent.example/a2a", "/a2a")).toBe(false);
    expect(receiptResourceMatches("https://other.example/a2a", "https://agent.example/a2a")).toBe(false);
  });
});
