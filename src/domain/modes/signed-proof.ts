import { verifyAsync } from "@noble/ed25519";
import { getAddressEncoder, type Address } from "@solana/kit";
import type { ReasonCode } from "../reason-codes.ts";
import { reject, type Rejection } from "../rejection.ts";

const addressEncoder = getAddressEncoder();

/** How far a proof's timestamp may be from our clock, either way (spec: 60 seconds). */
export const PROOF_WINDOW_SECONDS = 60;

/**
 * The bytes a proof signs: UTF-8 of `lines` joined by "\n", no trailing newline. The first line
 * is a domain tag naming the proof and its version, so a signature for one kind of proof (or a
 * Solana transaction message, which never starts with such text) is never valid as another.
 */
export function proofMessage(domainTag: string, fields: readonly string[]): Uint8Array {
  return new TextEncoder().encode([domainTag, ...fields].join("\n"));
}

/**
 * SECURITY: a captured proof is only replayable inside this window (and its paymentId is single
 * use). `expiredReason` names the proof in the answer (delegated payment, receipt claim).
 */
export function checkProofWindow(
  timestamp: number,
  nowMs: number,
  expiredReason: ReasonCode,
  windowSeconds: number = PROOF_WINDOW_SECONDS,
): Rejection | null {
  const skewSeconds = Math.abs(nowMs - timestamp * 1000) / 1000;
  if (skewSeconds <= windowSeconds) return null;
  return reject(
    expiredReason,
    `proof timestamp ${timestamp} is ${Math.round(skewSeconds)} s from the facilitator's clock (window ${windowSeconds} s)`,
  );
}

/**
 * Verifies `signer`'s ed25519 signature over `message`; `invalid` is the answer when it does not.
 * SECURITY: strict RFC 8032 verification (zip215 off) refuses small-order public keys and
 * non-canonical encodings, for which a signature can be valid for many messages at once.
 */
export async function verifyProofSignature(message: Uint8Array, signature: Uint8Array, signer: Address, invalid: Rejection): Promise<Rejection | null> {
  if (signature.length !== 64) return invalid;
  try {
    const publicKey = new Uint8Array(addressEncoder.encode(signer));
    const valid = await verifyAsync(signature, message, publicKey, { zip215: false });
    return valid ? null : invalid;
  } catch {
    // A malformed key or signature is just an invalid proof, never a crash.
    return invalid;
  }
}
