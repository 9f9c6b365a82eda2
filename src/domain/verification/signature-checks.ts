import { getAddressEncoder, type Address } from "@solana/kit";
import type { TransactionView } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "./rejection.ts";

const addressEncoder = getAddressEncoder();

/**
 * SECURITY: every required signature other than the fee payer's is verified over the message
 * bytes. Simulation runs with signature verification off, so without this a forged or zeroed
 * payer signature would pass /verify and fail only at settlement, after our fee is spent.
 */
export async function checkPayerSignatures(view: TransactionView): Promise<Rejection | null> {
  const others = view.signatureSlots.slice(1);
  for (const slot of others) {
    if (slot.signature === null) return reject("PAYER_SIGNATURE_INVALID", `signature of ${slot.address} is missing`);
  }
  const results = await Promise.all(others.map((slot) => verifyEd25519(slot.address, slot.signature, view.messageBytes)));
  const badIndex = results.indexOf(false);
  const bad = others[badIndex];
  return bad ? reject("PAYER_SIGNATURE_INVALID", `signature of ${bad.address} does not verify`) : null;
}

/** WebCrypto Ed25519 (native in Bun and Deno). Any failure, including a malformed key, is "invalid". */
async function verifyEd25519(address: Address, signature: Uint8Array | null, message: Uint8Array): Promise<boolean> {
  if (signature === null || signature.byteLength !== 64) return false;
  try {
    const key = await crypto.subtle.importKey("raw", new Uint8Array(addressEncoder.encode(address)), "Ed25519", false, ["verify"]);
    return await crypto.subtle.verify("Ed25519", key, new Uint8Array(signature), new Uint8Array(message));
  } catch {
    return false;
  }
}
