import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { getAddressEncoder, getProgramDerivedAddress, type Address } from "@solana/kit";
import { DELEGATION_DISCRIMINATOR, decodeDelegation, encodeDelegation, type Delegation } from "../../src/domain/modes/delegation.ts";
import { findDelegationPda, findReceiptPda } from "../../src/domain/modes/mode-pdas.ts";
import { PAYMENT_RECEIPT_DISCRIMINATOR, decodePaymentReceipt, encodePaymentReceipt, type PaymentReceipt } from "../../src/domain/modes/payment-receipt.ts";
import { delegation, PAYMENT_ID, PROGRAM_ID, receipt, testAddress } from "./support/mode-fixtures.ts";

/** Borsh written by hand from the IDL, independently of the kit codecs under test. */
class BorshWriter {
  private readonly bytes: number[] = [];
  raw(values: ArrayLike<number>) {
    for (let i = 0; i < values.length; i++) this.bytes.push(values[i] as number);
    return this;
  }
  u8(v: number) {
    return this.raw([v]);
  }
  bool(v: boolean) {
    return this.u8(v ? 1 : 0);
  }
  uint(v: bigint, size: number) {
    let x = BigInt.asUintN(size * 8, v);
    for (let i = 0; i < size; i++, x >>= 8n) this.bytes.push(Number(x & 0xffn));
    return this;
  }
  pubkey(a: Address) {
    return this.raw(getAddressEncoder().encode(a));
  }
  string(s: string) {
    const utf8 = new TextEncoder().encode(s);
    return this.uint(BigInt(utf8.length), 4).raw(utf8);
  }
  optionPubkey(a: Address | null) {
    return a === null ? this.u8(0) : this.u8(1).pubkey(a);
  }
  done() {
    return Uint8Array.from(this.bytes);
  }
}

function anchorDiscriminator(name: string): Uint8Array {
  return Uint8Array.from(createHash("sha256").update(`account:${name}`).digest().subarray(0, 8));
}

function receiptBytes(r: PaymentReceipt, modeIndex: number): Uint8Array {
  return new BorshWriter()
    .raw(anchorDiscriminator("PaymentReceipt"))
    .raw(r.paymentId)
    .pubkey(r.nftMint)
    .pubkey(r.payer)
    .pubkey(r.payee)
    .uint(r.amount, 8)
    .uint(r.feeAmount, 8)
    .pubkey(r.tokenMint)
    .raw(r.txSignature)
    .string(r.resource)
    .u8(modeIndex)
    .optionPubkey(r.delegation)
    .bool(r.settled)
    .uint(r.createdAt, 8)
    .u8(r.bump)
    .done();
}

function delegationBytes(d: Delegation): Uint8Array {
  const w = new BorshWriter()
    .raw(anchorDiscriminator("Delegation"))
    .uint(d.delegationId, 8)
    .pubkey(d.delegator)
    .pubkey(d.delegate)
    .pubkey(d.nftMint)
    .uint(d.ownerVersion, 8)
    .bool(d.canTransact)
    .bool(d.canGiveFeedback)
    .bool(d.canUpdateMetadata)
    .bool(d.canUpdatePricing)
    .bool(d.canRegisterServices)
    .bool(d.canManage)
    .bool(d.canRedelegate)
    .uint(d.maxSpendPerTx, 8)
    .uint(d.maxSpendTotal, 8)
    .uint(d.spentTotal, 8)
    .uint(BigInt(d.allowedTokens.length), 4);
  for (const mint of d.allowedTokens) w.pubkey(mint);
  w.uint(BigInt(d.allowedPrograms.length), 4);
  for (const program of d.allowedPrograms) w.pubkey(program);
  w.uint(d.expiresAt, 8).uint(d.usesRemaining, 8).uint(d.totalUses, 8).bool(d.active).optionPubkey(d.parentDelegation).u8(d.depth).uint(d.createdAt, 8);
  if (d.revokedAt === null) w.u8(0);
  else w.u8(1).uint(d.revokedAt, 8);
  return w.u8(d.bump).done();
}

function plain<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? [...v] : v)));
}

describe("PaymentReceipt codec (kit codec vs hand-written IDL layout)", () => {
  test("discriminator is sha256('account:PaymentReceipt')[0..8]", () => {
    expect([...PAYMENT_RECEIPT_DISCRIMINATOR]).toEqual([...anchorDiscriminator("PaymentReceipt")]);
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
    other.set(anchorDiscriminator("Delegation"), 0);
    expect(decodePaymentReceipt(other)).toMatchObject({ ok: false, reason: "wrong-discriminator" });
    expect(decodePaymentReceipt(receiptBytes(receipt(), 3))).toMatchObject({ ok: false, reason: "malformed" });
    expect(decodePaymentReceipt(good.subarray(0, 100))).toMatchObject({ ok: false, reason: "malformed" });
  });
});

describe("Delegation codec (kit codec vs hand-written IDL layout)", () => {
  test("discriminator is sha256('account:Delegation')[0..8]", () => {
    expect([...DELEGATION_DISCRIMINATOR]).toEqual([...anchorDiscriminator("Delegation")]);
  });

  const cases: Record<string, Delegation> = {
    "no options set, one allowed token": delegation(),
    "revoked sub-delegation with two allowed programs": delegation({
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
