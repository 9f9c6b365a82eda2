import type { Address } from "@solana/kit";
import { reject, type Rejection } from "../rejection.ts";
import { checkProofWindow, proofMessage, verifyProofSignature } from "./signed-proof.ts";

/** First line of the receipt-claim message; a new layout gets a new version, never a changed v1. */
export const RECEIPT_CLAIM_DOMAIN = "x402-receipt-claim:v1";

/** What the payer of an atomic or attestation receipt signs to claim it. */
export type ReceiptClaimFields = Readonly<{
  /** 64 hex characters; signed in lowercase. */
  paymentIdHex: string;
  /** The receipt's `resource`, exactly as the receipt holds it. */
  resource: string;
  /** Unix seconds. */
  timestamp: number;
}>;

/**
 * The exact bytes the receipt's payer signs: UTF-8 of four lines joined by "\n", no trailing
 * newline: the domain tag, paymentId (lowercase hex), the receipt's resource (as stored, not
 * normalised), timestamp (decimal Unix seconds). The resource cannot make two messages collide:
 * the paymentId line has a fixed length and the timestamp, the last line, has no "\n".
 */
export function receiptClaimMessage(fields: ReceiptClaimFields): Uint8Array {
  return proofMessage(RECEIPT_CLAIM_DOMAIN, [fields.paymentIdHex.toLowerCase(), fields.resource, String(fields.timestamp)]);
}

/**
 * SECURITY: a PaymentReceipt is public, so holding its paymentId and txSignature proves nothing.
 * Whoever presents it must sign, with the receipt's payer key, this paymentId and resource at a
 * time within the window: only the payer can claim its payment, and a captured claim expires.
 */
export function checkReceiptClaimWindow(timestamp: number, nowMs: number): Rejection | null {
  return checkProofWindow(timestamp, nowMs, "MODE_PROOF_EXPIRED");
}

/** The payer's signature over {@link receiptClaimMessage} (strict RFC 8032, as the delegated proof). */
export async function verifyReceiptClaimSignature(fields: ReceiptClaimFields, signature: Uint8Array, payer: Address): Promise<Rejection | null> {
  const invalid = reject("MODE_PROOF_INVALID", `the receipt-claim signature does not verify for the receipt's payer ${payer}`);
  return verifyProofSignature(receiptClaimMessage(fields), signature, payer, invalid);
}
