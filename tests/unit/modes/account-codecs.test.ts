import { describe, expect, test } from "bun:test";
import { getAddressEncoder, getProgramDerivedAddress } from "@solana/kit";
import { DELEGATION_DISCRIMINATOR, decodeDelegation, encodeDelegation, type Delegation } from "../../../src/domain/modes/delegation.ts";
import { findDelegationPda, findReceiptPda } from "../../../src/domain/modes/mode-pdas.ts";
import { PAYMENT_RECEIPT_DISCRIMINATOR, decodePaymentReceipt, encodePaymentReceipt, type PaymentReceipt } from "../../../src/domain/modes/payment-receipt.ts";
import { anchorDiscriminator, BorshBytes } from "../../support/borsh-bytes.ts";
import { delegation, PAYMENT_ID, PROGRAM_ID, receipt, testAddress } from "../../modes/support/mode-fixtures.ts";

/** The IDL's PaymentReceipt layout, field by field. */
function receiptBytes(r: PaymentReceipt, modeIndex: number): Uint8Array {
  const w = new BorshBytes().raw(anchorDiscriminator("account:PaymentReceipt")).raw(r.paymentId);
  w.pubkey(r.nftMint).pubkey(r.payer).pubkey(r.payee).u64(r.amount).u64(r.feeAmount).pubkey(r.tokenMint).raw(r.txSignature);
  w.string(r.resource).u8(modeIndex).option(r.delegation, (a) => w.pubkey(a)).bool(r.settled).i64(r.createdAt);
  return w.u8(r.bump).done();
}

/** The IDL's Delegation layout, field by field. */
function delegationBytes(d: Delegation): Uint8Array {
  const w = new BorshBytes().raw(anchorDiscriminator("account:Delegation")).u64(d.delegationId);
  w.pubkey(d.delegator).pubkey(d.delegate).pubkey(d.nftMint).u64(d.ownerVersion);
  w.bool(d.canTransact).bool(d.canGiveFeedback).bool(d.canUpdateMetadata).bool(d.canUpdatePricing);
  w.bool(d.canRegisterServices).bool(d.canManage).bool(d.canRedelegate).u64(d.maxSpendPerTx).u64(d.maxSpendTotal).u64(d.spentTotal);
  w.vec(d.allowedTokens, (mint) => w.pubkey(mint)).vec(d.allowedPrograms, (program) => w.pubkey(program));
  w.i64(d.expiresAt).u64(d.usesRemaining).u64(d.totalUses).bool(d.active).option(d.parentDelegation, (a) => w.pubkey(a));
  w.u8(d.depth).i64(d.createdAt).option(d.revokedAt, (at) => w.i64(at));
  return w.u8(d.bump).done();
}

function plain<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? [...v] : v)));
}

describe("PaymentReceipt codec (kit codec vs hand-written IDL layout)", () => {
  test("discriminator is sha256('account:PaymentReceipt')[0..8]", () => {
    expect([...PAYMENT_RECEIPT_DISCRIMINATOR]).toEqual([...anchorDiscriminator("account:PaymentReceipt")]);
    expect([...PAYMENT_RECEIPT_DISCRIMINATOR]).toEqual([168, 198, 209, 4, 60, 235, 126, 109]);
  });

  for (const [mode, index] of [["atomic", 0], ["attestation", 1], ["delegated", 2]] as const) {
    test(`encodes and decodes settlement_mode ${mode} as variant ${index}`, () => {
      const value = receipt({ settlementMode: mode, delegation: mode === "delegated" ? testAddress(77) : null });
      const expected = receiptBytes(value, index);
      expect(encodePaymentReceipt(value)).toEqual(expected);
      const decoded = decodePaymentReceipt(expected);
      expect(decoded.ok && plain(decoded.value)).toEqual(plain(value));
    });
  }

  test("decodes with trailing zero padding (Anchor allocates the maximum size)", () => {
    const bytes = new Uint8Array([...receiptBytes(receipt(), 0), ...new Uint8Array(150)]);
    const decoded = decodePaymentReceipt(bytes);
    expect(decoded.ok && decoded.value.resource).toBe(receipt().resource);
  });

  test("refuses another account's discriminator, an unknown mode variant and truncated data", () => {
    const good = receiptBytes(receipt(), 0);
    const other = new Uint8Array(good);
    other.set(anchorDiscriminator("account:Delegation"), 0);
    expect(decodePaymentReceipt(other)).toMatchObject({ ok: false, reason: "wrong-discriminator" });
    expect(decodePaymentReceipt(receiptBytes(receipt(), 3))).toMatchObject({ ok: false, reason: "malformed" });
    expect(decodePaymentReceipt(good.subarray(0, 100))).toMatchObject({ ok: false, reason: "malformed" });
  });
});

describe("Delegation codec (kit codec vs hand-written IDL layout)", () => {
  test("discriminator is sha256('account:Delegation')[0..8]", () => {
    expect([...DELEGATION_DISCRIMINATOR]).toEqual([...anchorDiscriminator("account:Delegation")]);
    expect([...DELEGATION_DISCRIMINATOR]).toEqual([237, 90, 140, 159, 124, 255, 243, 80]);
  });

  const cases: Record<string, Delegation> = {
    "no options set, one allowed token": delegation(),
    "revoked sub-delegation with two allowed programs": delegation({
      // Alternating flags, so two swapped booleans in the layout show.
      canGiveFeedback: true,
      canUpdatePricing: true,
      canManage: true,
      parentDelegation: testAddress(40),
      depth: 1,
      revokedAt: -5n,
      allowedTokens: [],
      allowedPrograms: [testAddress(41), testAddress(42)],
      expiresAt: 0n,
    }),
  };
  for (const [name, value] of Object.entries(cases)) {
    test(`round trip: ${name}`, () => {
      const expected = delegationBytes(value);
      expect(encodeDelegation(value)).toEqual(expected);
      const decoded = decodeDelegation(new Uint8Array([...expected, ...new Uint8Array(64)]));
      expect(decoded.ok && plain(decoded.value)).toEqual(plain(value));
    });
  }

  test("refuses a PaymentReceipt's bytes", () => {
    expect(decodeDelegation(receiptBytes(receipt(), 0))).toMatchObject({ ok: false, reason: "wrong-discriminator" });
  });
});

describe("mode PDAs (seeds from the IDL, built by hand)", () => {
  test('receipt PDA uses ["receipt", payment_id]', async () => {
    const expected = await getProgramDerivedAddress({ programAddress: PROGRAM_ID, seeds: [Uint8Array.from([114, 101, 99, 101, 105, 112, 116]), PAYMENT_ID] });
    expect(await findReceiptPda(PROGRAM_ID, PAYMENT_ID)).toEqual(expected);
    await expect(findReceiptPda(PROGRAM_ID, new Uint8Array(31))).rejects.toThrow(RangeError);
  });

  test('delegation PDA uses ["delegation", delegator, delegate, delegation_id u64 LE]', async () => {
    const id = new Uint8Array(8);
    id[0] = 0x02;
    id[1] = 0x01; // 258
    const seeds = [new TextEncoder().encode("delegation"), getAddressEncoder().encode(testAddress(1)), getAddressEncoder().encode(testAddress(2)), id];
    const expected = await getProgramDerivedAddress({ programAddress: PROGRAM_ID, seeds });
    expect(await findDelegationPda(PROGRAM_ID, testAddress(1), testAddress(2), 258n)).toEqual(expected);
    expect((await findDelegationPda(PROGRAM_ID, testAddress(1), testAddress(2), 259n))[0]).not.toBe(expected[0]);
  });
});
