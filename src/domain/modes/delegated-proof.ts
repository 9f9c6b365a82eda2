import type { Address } from "@solana/kit";
import { reject, type Rejection } from "../rejection.ts";
import { checkProofWindow, PROOF_WINDOW_SECONDS, proofMessage, verifyProofSignature } from "./signed-proof.ts";

/** First line of the proof message; a new layout gets a new version, never a changed v1. */
export const DELEGATED_PROOF_DOMAIN = "x402-delegated-payment:v1";

/** How far the proof's timestamp may be from our clock, either way (spec: 60 seconds). */
export const DELEGATED_PROOF_WINDOW_SECONDS = PROOF_WINDOW_SECONDS;

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
  return proofMessage(DELEGATED_PROOF_DOMAIN, [
    fields.paymentIdHex.toLowerCase(),
    fields.payer,
    fields.payTo,
    fields.asset,
    fields.amount.toString(10),
    String(fields.timestamp),
  ]);
}

/** SECURITY: a captured proof is only replayable inside this window (and paymentId is single use). */
export function checkProofTimestamp(timestamp: number, nowMs: number, windowSeconds = DELEGATED_PROOF_WINDOW_SECONDS): Rejection | null {
  return checkProofWindow(timestamp, nowMs, "DELEGATION_PROOF_EXPIRED", windowSeconds);
}

/**
 * Verifies the payer's ed25519 signature over {@link delegatedProofMessage} (strict RFC 8032,
 * see {@link verifyProofSignature}).
 */
export async function verifyDelegatedProofSignature(
  fields: DelegatedProofFields,
  signature: Uint8Array,
  signer: Address = fields.payer,
): Promise<Rejection | null> {
  const invalid = reject("DELEGATION_PROOF_INVALID", `the proof signature does not verify for ${signer === fields.payer ? "payer" : "delegate"} ${signer}`);
  return verifyProofSignature(delegatedProofMessage(fields), signature, signer, invalid);
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
