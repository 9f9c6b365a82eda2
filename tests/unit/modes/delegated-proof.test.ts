import { describe, expect, test } from "bun:test";
import { getPublicKeyAsync, signAsync, utils } from "@noble/ed25519";
import { getAddressDecoder, type Address } from "@solana/kit";
import {
  checkDelegatedProof,
  checkProofTimestamp,
  delegatedProofMessage,
  type DelegatedProofFields,
} from "../../../src/domain/modes/delegated-proof.ts";
import { NOW_MS, NOW_S, PAYMENT_ID_HEX, PAY_TO, USDC, testAddress } from "../../modes/support/mode-fixtures.ts";

async function keyPair(): Promise<{ secret: Uint8Array; address: Address }> {
  const secret = utils.randomSecretKey();
  return { secret, address: getAddressDecoder().decode(await getPublicKeyAsync(secret)) };
}

function fields(payer: Address, overrides: Partial<DelegatedProofFields> = {}): DelegatedProofFields {
  return { paymentIdHex: PAYMENT_ID_HEX, payer, payTo: PAY_TO, asset: USDC, amount: 1_000_000n, timestamp: NOW_S, ...overrides };
}

describe("delegated proof (real ed25519 via @noble/ed25519)", () => {
  test("the canonical message is the documented seven lines", () => {
    const payer = testAddress(1);
    const text = new TextDecoder().decode(delegatedProofMessage(fields(payer, { paymentIdHex: PAYMENT_ID_HEX.toUpperCase() })));
    expect(text).toBe(["x402-delegated-payment:v1", PAYMENT_ID_HEX, payer, PAY_TO, USDC, "1000000", String(NOW_S)].join("\n"));
  });

  test("accepts the payer's signature within the window, at both edges", async () => {
    const { secret, address } = await keyPair();
    const proof = fields(address);
    const signature = await signAsync(delegatedProofMessage(proof), secret);
    expect(await checkDelegatedProof(proof, signature, NOW_MS)).toBeNull();
    expect(await checkDelegatedProof(proof, signature, NOW_MS + 60_000)).toBeNull();
    expect(await checkDelegatedProof(proof, signature, NOW_MS - 60_000)).toBeNull();
  });

  test("DELEGATION_PROOF_EXPIRED just outside the 60 s window, either way", () => {
    expect(checkProofTimestamp(NOW_S, NOW_MS + 60_001)?.reason).toBe("DELEGATION_PROOF_EXPIRED");
    expect(checkProofTimestamp(NOW_S, NOW_MS - 60_001)?.reason).toBe("DELEGATION_PROOF_EXPIRED");
  });

  test("DELEGATION_PROOF_INVALID when any signed field changes", async () => {
    const { secret, address } = await keyPair();
    const signature = await signAsync(delegatedProofMessage(fields(address)), secret);
    const tampered: Partial<DelegatedProofFields>[] = [
      { amount: 1_000_001n },
      { payTo: testAddress(2) },
      { asset: testAddress(3) },
      { paymentIdHex: "00".repeat(32) },
      { timestamp: NOW_S + 1 },
    ];
    for (const change of tampered) {
      expect((await checkDelegatedProof(fields(address, change), signature, NOW_MS))?.reason).toBe("DELEGATION_PROOF_INVALID");
    }
  });

  test("DELEGATION_PROOF_INVALID for another signer, a flipped bit, a short signature", async () => {
    const payer = await keyPair();
    const other = await keyPair();
    const proof = fields(payer.address);
    const byOther = await signAsync(delegatedProofMessage(proof), other.secret);
    expect((await checkDelegatedProof(proof, byOther, NOW_MS))?.reason).toBe("DELEGATION_PROOF_INVALID");
    const good = await signAsync(delegatedProofMessage(proof), payer.secret);
    const flipped = new Uint8Array(good);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    expect((await checkDelegatedProof(proof, flipped, NOW_MS))?.reason).toBe("DELEGATION_PROOF_INVALID");
    expect((await checkDelegatedProof(proof, good.subarray(0, 63), NOW_MS))?.reason).toBe("DELEGATION_PROOF_INVALID");
  });

  test("DELEGATION_PROOF_INVALID (no crash) for a payer key that is not a curve point or is small-order", async () => {
    // All-zero signature with the identity point as key verifies under ZIP-215 for any message.
    const identity = getAddressDecoder().decode(Uint8Array.from([1, ...new Array(31).fill(0)]));
    const zeroSignature = new Uint8Array(64);
    zeroSignature[0] = 1;
    expect((await checkDelegatedProof(fields(identity), zeroSignature, NOW_MS))?.reason).toBe("DELEGATION_PROOF_INVALID");
    const offCurve = getAddressDecoder().decode(new Uint8Array(32).fill(0xff));
    expect((await checkDelegatedProof(fields(offCurve), new Uint8Array(64), NOW_MS))?.reason).toBe("DELEGATION_PROOF_INVALID");
  });
});
