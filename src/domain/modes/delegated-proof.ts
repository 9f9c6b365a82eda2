import { verifyAsync } from "@noble/ed25519";
import { getAddressEncoder, type Address } from "@solana/kit";
import { reject, type Rejection } from "../verification/rejection.ts";

const addressEncoder = getAddressEncoder();

/** First line of the proof message; a new layout gets a new version, never a changed v1. */
export const DELEGATED_PROOF_DOMAIN = "x402-delegated-payment:v1";

/** How far the proof's timestamp may be from our clock, either way (spec: 60 seconds). */
export const DELEGATED_PROOF_WINDOW_SECONDS = 60;

/** The fields a server-side delegated proof commits to. */
export type DelegatedProofFields = Readonly<{
  /** Lowercase hex, 64 characters. */
  paymentIdHex: string;
  payer: Address;
  payTo: string;
  asset: string;
  amount: bigint;
  /** Unix seconds. */
  timestamp: number;
}>;

/**
 * The exact bytes the payer signs: UTF-8 of seven lines joined by "\n", no trailing newline:
 * the domain tag, paymentId (lowercase hex), payer, payTo, asset (base58), amount (decimal base
 * units), timestamp (decimal Unix seconds). The domain tag keeps the signature from being
 * valid as anything else the payer's key signs (a transaction message never starts with it).
 */
export function delegatedProofMessage(fields: DelegatedProofFields): Uint8Array {
  const lines = [
    DELEGATED_PROOF_DOMAIN,
    fields.paymentIdHex.toLowerCase(),
    fields.payer,
    fields.payTo,
    fields.asset,
    fields.amount.toString(10),
    String(fields.timestamp),
  ];
  return new TextEncoder().encode(lines.join("\n"));
}

/** SECURITY: a captured proof is only replayable inside this window (and paymentId is single use). */
export function checkProofTimestamp(timestamp: number, nowMs: number, windowSeconds = DELEGATED_PROOF_WINDOW_SECONDS): Rejection | null {
  const skewSeconds = Math.abs(nowMs - timestamp * 1000) / 1000;
  if (skewSeconds <= windowSeconds) return null;
  return reject(
    "DELEGATION_PROOF_EXPIRED",
    `proof timestamp ${timestamp} is ${Math.round(skewSeconds)} s from the facilitator's clock (window ${windowSeconds} s)`,
  );
}

/**
 * Verifies the payer's ed25519 signature over {@link delegatedProofMessage}.
 * SECURITY: strict RFC 8032 verification (zip215 off) refuses small-order public keys and
 * non-canonical encodings, for which a signature can be valid for many messages at once.
 */
export async function verifyDelegatedProofSignature(
  fields: DelegatedProofFields,
  signature: Uint8Array,
  signer: Address = fields.payer,
): Promise<Rejection | null> {
  const invalid = reject("DELEGATION_PROOF_INVALID", `the proof signature does not verify for ${signer === fields.payer ? "payer" : "delegate"} ${signer}`);
  if (signature.length !== 64) return invalid;
  try {
    const publicKey = new Uint8Array(addressEncoder.encode(signer));
    const valid = await verifyAsync(signature, delegatedProofMessage(fields), publicKey, { zip215: false });
    return valid ? null : invalid;
  } catch {
    // A malformed key or signature is just an invalid proof, never a crash.
    return invalid;
  }
}

/**
 * The delegated proof: timestamp window first (cheap), then the signature by `signer` — the
 * payer (server-side) or the Delegation's delegate (client-side).
 */
export async function checkDelegatedProof(
  fields: DelegatedProofFields,
  signature: Uint8Array,
  nowMs: number,
  signer: Address = fields.payer,
): Promise<Rejection | null> {
  return checkProofTimestamp(fields.timestamp, nowMs) ?? (await verifyDelegatedProofSignature(fields, signature, signer));
}
