import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/**
 * The idempotency key of a payment: hex SHA-256 of the transaction MESSAGE bytes. Not the wire
 * bytes: the empty fee-payer slot can be varied without changing what the transaction does.
 */
export function settlementKeyOf(messageBytes: Uint8Array): string {
  return bytesToHex(sha256(messageBytes));
}
