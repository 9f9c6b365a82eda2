import { settlementKeyOf } from "../payment/settlement-key.ts";
import type { ModeName } from "./settlement-mode.ts";

/**
 * Idempotency key of a mode payment. Its identity is the paymentId, not a transaction: the
 * delegated transfer is rebuilt on every attempt (new blockhash) and the atomic one was sent
 * by the client. The mode is part of the key so one id cannot be counted under two modes.
 */
export function modeSettlementKey(mode: ModeName, paymentIdHex: string): string {
  return settlementKeyOf(new TextEncoder().encode(`mode:${mode}:${paymentIdHex.toLowerCase()}`));
}
