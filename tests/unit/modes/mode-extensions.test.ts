import { describe, expect, test } from "bun:test";
import { parseModeExtensions, type ModeExtensions } from "../../../src/domain/modes/mode-extensions.ts";
import type { Rejection } from "../../../src/domain/rejection.ts";
import { PAYER, PAYMENT_ID, PAYMENT_ID_HEX, TX_SIGNATURE, testAddress } from "../../modes/support/mode-fixtures.ts";

const SIGNATURE_B64 = btoa(String.fromCharCode(...new Uint8Array(64).fill(7)));

function parsed(extensions: Record<string, unknown>): ModeExtensions {
  const result = parseModeExtensions(extensions);
  if ("reason" in result) throw new Error(`unexpected rejection: ${result.message}`);
  return result;
}

function rejection(extensions: Record<string, unknown> | null): Rejection {
  const result = parseModeExtensions(extensions);
  if (!("reason" in result)) throw new Error("expected a rejection");
  return result;
}

describe("parseModeExtensions (pure)", () => {
  test("atomic: paymentId hex becomes 32 bytes (lowercased), txSignature kept, unrelated keys ignored", () => {
    const result = parsed({ mode: "atomic", paymentId: PAYMENT_ID_HEX.toUpperCase(), txSignature: TX_SIGNATURE, receiptPda: testAddress(3), extra: 1 });
    expect(result.mode).toBe("atomic");
    expect(result.paymentId).toEqual(PAYMENT_ID);
    expect(result.paymentIdHex).toBe(PAYMENT_ID_HEX);
    expect(result.txSignature).toBe(TX_SIGNATURE);
    expect(result.receiptPda).toBe(testAddress(3));
    expect("delegationPda" in result).toBe(false);
  });

  test("delegated server-side: signature (64 bytes), timestamp, payer and amount", () => {
    const result = parsed({ mode: "delegated", paymentId: PAYMENT_ID_HEX, signature: SIGNATURE_B64, timestamp: 1_750_000_000, payer: PAYER, amount: "1000000" });
    expect(result.signature).toEqual(new Uint8Array(64).fill(7));
    expect(result.timestamp).toBe(1_750_000_000);
    expect(result.amount).toBe(1_000_000n);
  });

  test("atomic with the receipt-claim proof: signature (64 bytes) and timestamp", () => {
    const result = parsed({ mode: "atomic", paymentId: PAYMENT_ID_HEX, txSignature: TX_SIGNATURE, signature: SIGNATURE_B64, timestamp: 1_750_000_000 });
    expect(result.signature).toEqual(new Uint8Array(64).fill(7));
    expect(result.timestamp).toBe(1_750_000_000);
  });

  test("delegated client-side: delegationPda alone is enough", () => {
    expect(parsed({ mode: "delegated", paymentId: PAYMENT_ID_HEX, delegationPda: testAddress(4) }).delegationPda).toBe(testAddress(4));
  });

  const refused: Record<string, Record<string, unknown> | null> = {
    "no extensions": null,
    "unknown mode": { mode: "standard", paymentId: PAYMENT_ID_HEX, txSignature: TX_SIGNATURE },
    "mode of the wrong type": { mode: 1, paymentId: PAYMENT_ID_HEX },
    "missing paymentId": { mode: "atomic", txSignature: TX_SIGNATURE },
    "paymentId of 31 bytes": { mode: "atomic", paymentId: PAYMENT_ID_HEX.slice(2), txSignature: TX_SIGNATURE },
    "paymentId not hex": { mode: "atomic", paymentId: "zz" + PAYMENT_ID_HEX.slice(2), txSignature: TX_SIGNATURE },
    "atomic without txSignature": { mode: "atomic", paymentId: PAYMENT_ID_HEX },
    "attestation with a garbage txSignature": { mode: "attestation", paymentId: PAYMENT_ID_HEX, txSignature: "0OIl" },
    "receiptPda not an address": { mode: "atomic", paymentId: PAYMENT_ID_HEX, txSignature: TX_SIGNATURE, receiptPda: "nope" },
    "delegated with neither payer nor delegationPda": { mode: "delegated", paymentId: PAYMENT_ID_HEX },
    "signature without timestamp": { mode: "delegated", paymentId: PAYMENT_ID_HEX, payer: PAYER, signature: SIGNATURE_B64 },
    "atomic claim signature without timestamp": { mode: "atomic", paymentId: PAYMENT_ID_HEX, txSignature: TX_SIGNATURE, signature: SIGNATURE_B64 },
    "attestation claim timestamp without signature": { mode: "attestation", paymentId: PAYMENT_ID_HEX, txSignature: TX_SIGNATURE, timestamp: 1 },
    "proof without payer": { mode: "delegated", paymentId: PAYMENT_ID_HEX, signature: SIGNATURE_B64, timestamp: 1 },
    "signature of 63 bytes": { mode: "delegated", paymentId: PAYMENT_ID_HEX, payer: PAYER, timestamp: 1, signature: btoa("x".repeat(63)) },
    "timestamp as a string": { mode: "delegated", paymentId: PAYMENT_ID_HEX, payer: PAYER, signature: SIGNATURE_B64, timestamp: "1" },
    "fractional timestamp": { mode: "delegated", paymentId: PAYMENT_ID_HEX, payer: PAYER, signature: SIGNATURE_B64, timestamp: 1.5 },
    "negative amount": { mode: "delegated", paymentId: PAYMENT_ID_HEX, delegationPda: testAddress(4), amount: "-1" },
    "amount above u64": { mode: "delegated", paymentId: PAYMENT_ID_HEX, delegationPda: testAddress(4), amount: "18446744073709551616" },
  };
  for (const [name, extensions] of Object.entries(refused)) {
    test(`MODE_INVALID: ${name}`, () => {
      const result = rejection(extensions);
      expect(result.reason).toBe("MODE_INVALID");
      expect(result.message.length).toBeGreaterThan(0);
    });
  }
});
