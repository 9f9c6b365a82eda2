import { describe, expect, test } from "bun:test";
import { getPublicKeyAsync, signAsync, utils } from "@noble/ed25519";
import { getAddressDecoder, type Address } from "@solana/kit";
import { checkReceiptClaimWindow, receiptClaimMessage, verifyReceiptClaimSignature, type ReceiptClaimFields } from "../../../src/domain/modes/receipt-claim-proof.ts";
import { NOW_MS, NOW_S, PAYMENT_ID_HEX } from "../../modes/support/mode-fixtures.ts";

/** The claim check as check-receipt-payment.ts runs it: the window first (cheap), then the payer's signature. */
async function checkReceiptClaim(fields: ReceiptClaimFields, signature: Uint8Array, nowMs: number, payer: Address) {
  return checkReceiptClaimWindow(fields.timestamp, nowMs) ?? (await verifyReceiptClaimSignature(fields, signature, payer));
}

async function keyPair(): Promise<{ secret: Uint8Array; address: Address }> {
  const secret = utils.randomSecretKey();
  return { secret, address: getAddressDecoder().decode(await getPublicKeyAsync(secret)) };
}

function fields(overrides: Partial<ReceiptClaimFields> = {}): ReceiptClaimFields {
  return { paymentIdHex: PAYMENT_ID_HEX, resource: "/a2a", timestamp: NOW_S, ...overrides };
}

describe("receipt-claim proof (real ed25519 via @noble/ed25519)", () => {
  test("the canonical message is the documented four lines, byte for byte", () => {
    const bytes = receiptClaimMessage(fields({ paymentIdHex: PAYMENT_ID_HEX.toUpperCase(), resource: "https://a.example/x?y=1" }));
    const text = ["x402-receipt-claim:v1", PAYMENT_ID_HEX, "https://a.example/x?y=1", String(NOW_S)].join("\n");
    expect(bytes).toEqual(new TextEncoder().encode(text));
    expect(text.endsWith("\n")).toBe(false);
  });

  test("the documented example, byte for byte", () => {
    const example = "x402-receipt-claim:v1\n0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20\n/a2a\n1750000000";
    expect(receiptClaimMessage({ paymentIdHex: PAYMENT_ID_HEX, resource: "/a2a", timestamp: 1_750_000_000 })).toEqual(new TextEncoder().encode(example));
  });

  test("the resource is signed exactly as the receipt holds it (UTF-8, not normalised)", () => {
    const text = new TextDecoder().decode(receiptClaimMessage(fields({ resource: "/pay/é dé" })));
    expect(text.split("\n")[2]).toBe("/pay/é dé");
  });

  test("accepts the payer's signature within the window, at both edges", async () => {
    const { secret, address } = await keyPair();
    const signature = await signAsync(receiptClaimMessage(fields()), secret);
    for (const now of [NOW_MS, NOW_MS + 60_000, NOW_MS - 60_000]) expect(await checkReceiptClaim(fields(), signature, now, address)).toBeNull();
  });

  test("MODE_PROOF_EXPIRED just outside the 60 s window, either way", async () => {
    const { secret, address } = await keyPair();
    const signature = await signAsync(receiptClaimMessage(fields()), secret);
    for (const now of [NOW_MS + 60_001, NOW_MS - 60_001]) expect((await checkReceiptClaim(fields(), signature, now, address))?.reason).toBe("MODE_PROOF_EXPIRED");
  });

  test("MODE_PROOF_INVALID when a signed field changes, for another signer, a delegated-proof signature or a short signature", async () => {
    const payer = await keyPair();
    const other = await keyPair();
    const signature = await signAsync(receiptClaimMessage(fields()), payer.secret);
    for (const change of [{ paymentIdHex: "00".repeat(32) }, { resource: "/a2a/" }, { timestamp: NOW_S + 1 }]) {
      expect((await checkReceiptClaim(fields(change), signature, NOW_MS, payer.address))?.reason).toBe("MODE_PROOF_INVALID");
    }
    expect((await checkReceiptClaim(fields(), signature, NOW_MS, other.address))?.reason).toBe("MODE_PROOF_INVALID");
    expect((await checkReceiptClaim(fields(), signature.subarray(0, 63), NOW_MS, payer.address))?.reason).toBe("MODE_PROOF_INVALID");
    // The same key's signature over the same lines under the delegated domain tag is not a claim.
    const otherDomain = new TextEncoder().encode(["x402-delegated-payment:v1", PAYMENT_ID_HEX, "/a2a", String(NOW_S)].join("\n"));
    expect((await checkReceiptClaim(fields(), await signAsync(otherDomain, payer.secret), NOW_MS, payer.address))?.reason).toBe("MODE_PROOF_INVALID");
  });

  test("MODE_PROOF_INVALID (no crash) for a small-order payer key (strict verification, zip215 off)", async () => {
    // All-zero signature with the identity point as key verifies under ZIP-215 for any message.
    const identity = getAddressDecoder().decode(Uint8Array.from([1, ...new Array(31).fill(0)]));
    const zeroSignature = new Uint8Array(64);
    zeroSignature[0] = 1;
    expect((await checkReceiptClaim(fields(), zeroSignature, NOW_MS, identity))?.reason).toBe("MODE_PROOF_INVALID");
  });
});
