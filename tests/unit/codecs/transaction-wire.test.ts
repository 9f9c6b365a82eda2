// transactionWire (src/domain/transaction/transaction-wire.ts) writes the bytes kit's
// getTransactionEncoder writes, for the legacy and v0 messages payments are parsed as; the settle
// path signs, stores and sends exactly these bytes.
import { describe, expect, it } from "bun:test";
import { type Transaction, getTransactionEncoder } from "@solana/kit";
import { transactionWire } from "../../../src/domain/transaction/transaction-wire.ts";

const FEE_PAYER = "FeePayer1111111111111111111111111111111111111";
const PAYER = "Payer11111111111111111111111111111111111111111";

function transactionOf(message: number[], signatures: Record<string, Uint8Array | null>): Transaction {
  return { messageBytes: Uint8Array.from(message), signatures } as unknown as Transaction;
}

const filled = (byte: number) => new Uint8Array(64).fill(byte);
const kitWire = (transaction: Transaction) => new Uint8Array(getTransactionEncoder().encode(transaction));

describe("transactionWire: kit's transaction encoding", () => {
  it("writes a legacy transaction with our slot signed and another's, as kit does", () => {
    const transaction = transactionOf([2, 1, 0, 9, 8, 7], { [FEE_PAYER]: filled(1), [PAYER]: filled(2) });
    expect(transactionWire(transaction)).toEqual(kitWire(transaction));
    expect(transactionWire(transaction)[0]).toBe(2);
  });

  it("writes a missing signature as 64 zero bytes, in the signers' order", () => {
    const transaction = transactionOf([0x80, 2, 1, 0, 5], { [FEE_PAYER]: null, [PAYER]: filled(7) });
    const wire = transactionWire(transaction);
    expect(wire).toEqual(kitWire(transaction));
    expect(wire.subarray(1, 65)).toEqual(new Uint8Array(64));
    expect(wire.subarray(65, 129)).toEqual(filled(7));
  });

  it("writes a signature count past 127 in two compact-u16 bytes", () => {
    const signatures = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`Signer${i}`, filled(i)]));
    const transaction = transactionOf([1, 0, 0, 3], signatures);
    const wire = transactionWire(transaction);
    expect(wire).toEqual(kitWire(transaction));
    expect([wire[0], wire[1]]).toEqual([0x82, 0x01]);
  });

  it("refuses what it would write in another shape than kit: a v1 message, no signers, an empty message, a short signature", () => {
    expect(() => transactionWire(transactionOf([0x81, 1, 0], { [FEE_PAYER]: null }))).toThrow(RangeError);
    expect(() => transactionWire(transactionOf([1, 0, 0], {}))).toThrow(RangeError);
    expect(() => transactionWire(transactionOf([], { [FEE_PAYER]: null }))).toThrow(RangeError);
    expect(() => transactionWire(transactionOf([1, 0, 0], { [FEE_PAYER]: new Uint8Array(63) }))).toThrow(RangeError);
  });
});
