import { getPublicKeyAsync, signAsync } from "@noble/ed25519";
import { getAddressDecoder, getBase58Decoder, type Address, type Signature } from "@solana/kit";
import { delegatedProofMessage, type DelegatedProofFields } from "../../../src/domain/modes/delegated-proof.ts";
import type { Delegation } from "../../../src/domain/modes/delegation.ts";
import type { PaymentReceipt } from "../../../src/domain/modes/payment-receipt.ts";
import { receiptClaimMessage, type ReceiptClaimFields } from "../../../src/domain/modes/receipt-claim-proof.ts";
import { DEVNET_USDC_MINT } from "../../../src/domain/networks.ts";
import type { PaymentRequest, PaymentRequirements } from "../../../src/domain/payment/payment-request.ts";

export const PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;
export const USDC = DEVNET_USDC_MINT as Address;
/** 2025-06-15T15:06:40Z; tests set the clock around it. */
export const NOW_MS = 1_750_000_000_000;
export const NOW_S = 1_750_000_000;

/** A deterministic address from one seed byte (not necessarily on the curve; fine for data). */
export function testAddress(seed: number): Address {
  return getAddressDecoder().decode(new Uint8Array(32).fill(seed));
}

export function filled(length: number, value: number): Uint8Array {
  return new Uint8Array(length).fill(value);
}

export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const PAYMENT_ID = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const PAYMENT_ID_HEX = hex(PAYMENT_ID);
export const TX_SIGNATURE_BYTES = Uint8Array.from({ length: 64 }, (_, i) => 200 - i);
export const TX_SIGNATURE = getBase58Decoder().decode(TX_SIGNATURE_BYTES) as Signature;

/**
 * The fixture receipt's payer is a real ed25519 key, because an atomic or attestation payment
 * must carry a receipt-claim proof signed by that key. Fixed secret, so the address is stable.
 */
export const PAYER_SECRET = Uint8Array.from({ length: 32 }, (_, i) => 0x20 + i);
export const PAYER: Address = getAddressDecoder().decode(await getPublicKeyAsync(PAYER_SECRET));
/** Where the x84 protocol fee of a receipt payment goes. */
export const TREASURY = testAddress(14);
export const PAY_TO = testAddress(12);
export const AGENT_MINT = testAddress(13);

/**
 * The fixture Delegation's delegate is a real ed25519 key, because a client-side delegated
 * payment must carry a proof signed by that key. Fixed secret, so the address is stable.
 */
export const DELEGATE_SECRET = Uint8Array.from({ length: 32 }, (_, i) => 0x40 + i);
export const DELEGATE: Address = getAddressDecoder().decode(await getPublicKeyAsync(DELEGATE_SECRET));

/** The proof fields for the default requirements (PAY_TO, USDC, 1 USDC, NOW_S). */
export function proofFields(payer: Address, overrides: Partial<DelegatedProofFields> = {}): DelegatedProofFields {
  return { paymentIdHex: PAYMENT_ID_HEX, payer, payTo: PAY_TO, asset: USDC, amount: 1_000_000n, timestamp: NOW_S, ...overrides };
}

/** The 64-byte ed25519 signature by `secret` over the canonical delegated proof message. */
export function signDelegatedProof(secret: Uint8Array, fields: DelegatedProofFields): Promise<Uint8Array> {
  return signAsync(delegatedProofMessage(fields), secret);
}

/** The receipt-claim proof by `secret` over (paymentId, resource, timestamp), as `extensions` carries it. */
export async function receiptClaimExtensions(
  secret: Uint8Array,
  fields: Partial<ReceiptClaimFields> = {},
): Promise<{ signature: string; timestamp: number }> {
  const claim: ReceiptClaimFields = { paymentIdHex: PAYMENT_ID_HEX, resource: "https://api.example.com/weather", timestamp: NOW_S, ...fields };
  return { signature: base64(await signAsync(receiptClaimMessage(claim), secret)), timestamp: claim.timestamp };
}

export function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

export function receipt(overrides: Partial<PaymentReceipt> = {}): PaymentReceipt {
  return {
    paymentId: PAYMENT_ID,
    nftMint: AGENT_MINT,
    payer: PAYER,
    payee: PAY_TO,
    amount: 1_000_000n,
    feeAmount: 10_000n,
    tokenMint: USDC,
    txSignature: TX_SIGNATURE_BYTES,
    resource: "https://api.example.com/weather",
    settlementMode: "atomic",
    delegation: null,
    settled: true,
    createdAt: BigInt(NOW_S - 30),
    bump: 254,
    ...overrides,
  };
}

export function delegation(overrides: Partial<Delegation> = {}): Delegation {
  return {
    delegationId: 3n,
    delegator: PAYER,
    delegate: DELEGATE,
    nftMint: AGENT_MINT,
    ownerVersion: 2n,
    canTransact: true,
    canGiveFeedback: false,
    canUpdateMetadata: false,
    canUpdatePricing: false,
    canRegisterServices: false,
    canManage: false,
    canRedelegate: false,
    maxSpendPerTx: 5_000_000n,
    maxSpendTotal: 20_000_000n,
    spentTotal: 4_000_000n,
    allowedTokens: [USDC],
    allowedPrograms: [],
    expiresAt: BigInt(NOW_S + 3600),
    usesRemaining: 0n,
    totalUses: 4n,
    active: true,
    parentDelegation: null,
    depth: 0,
    createdAt: BigInt(NOW_S - 86_400),
    revokedAt: null,
    bump: 255,
    ...overrides,
  };
}

export function requirements(overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    asset: USDC,
    amount: 1_000_000n,
    payTo: PAY_TO,
    extra: {},
    ...overrides,
  };
}

/** A normalised request carrying `extensions` and no transaction (modes may omit it). */
export function modeRequest(extensions: Record<string, unknown>, reqOverrides: Partial<PaymentRequirements> = {}): PaymentRequest {
  const req = requirements(reqOverrides);
  return {
    paymentPayload: { x402Version: 2, accepted: req, transaction: null, extensions },
    paymentRequirements: req,
    sourceVersion: 2,
  };
}
