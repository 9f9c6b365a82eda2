/**
 * Every machine-readable reason the facilitator answers with, in `/verify` (`invalidReason`)
 * and `/settle` (`errorReason`). One closed list: adding a code is a contract change, so it is
 * documented in docs/verification.md beside the attack or mistake it stops.
 */
export const REASON_CODES = [
  // Requirements and `accepted`.
  "UNSUPPORTED_SCHEME",
  "UNSUPPORTED_NETWORK",
  "UNSUPPORTED_ASSET",
  "ACCEPTED_REQUIREMENTS_MISMATCH",
  "ZERO_AMOUNT",
  "AMOUNT_TOO_SMALL",
  "PAYTO_NOT_ALLOWED",
  // The transaction's shape.
  "INVALID_TRANSACTION",
  "TRANSACTION_TOO_LARGE",
  "TOO_MANY_INSTRUCTIONS",
  "ADDRESS_LOOKUP_TABLE_NOT_ALLOWED",
  "DISALLOWED_PROGRAM",
  "COMPUTE_BUDGET_INVALID",
  "COMPUTE_UNIT_LIMIT_TOO_HIGH",
  "COMPUTE_UNIT_PRICE_TOO_HIGH",
  "PRIORITY_FEE_TOO_HIGH",
  "TOO_MANY_SIGNATURES",
  "UNEXPECTED_TOKEN_INSTRUCTION",
  "TRANSFER_INSTRUCTION_COUNT",
  "PROTOCOL_FEE_MISMATCH",
  // The fee payer's protection.
  "FEE_PAYER_MISMATCH",
  "ALREADY_SIGNED",
  "FEE_PAYER_IN_INSTRUCTION",
  "PAYER_SIGNATURE_INVALID",
  // The transfer against the requirements.
  "AMOUNT_MISMATCH",
  "MINT_MISMATCH",
  "RECIPIENT_MISMATCH",
  "SELF_PAYMENT",
  // Token-2022 extension policy (docs/verification.md).
  "TRANSFER_FEE_NOT_ALLOWED",
  "TRANSFER_HOOK_NOT_ALLOWED",
  "PERMANENT_DELEGATE_NOT_ALLOWED",
  "MINT_NOT_TRANSFERABLE",
  // Ledger-backed checks.
  "BLOCKHASH_EXPIRED",
  "SIMULATION_FAILED",
  "INSUFFICIENT_FUNDS",
  // Settlement.
  "ALREADY_SETTLED",
  "SETTLEMENT_FAILED",
  "FEE_BUDGET_EXCEEDED",
  "FEE_BUDGET_UNAVAILABLE",
  // Not final: broadcast, confirmation still awaited (lower case, as @x402/core expects it).
  "settlement_pending",
  "DUPLICATE_SETTLEMENT",
  "PAYMENT_ID_INVALID",
  // Settlement modes (extensions.mode).
  "MODE_INVALID",
  "MODE_RECEIPT_NOT_FOUND",
  "MODE_TX_NOT_FOUND",
  "MODE_TX_FAILED",
  "MODE_RECEIPT_MISMATCH",
  "MODE_TRANSFER_MISMATCH",
  "MODE_PROOF_INVALID",
  "MODE_PROOF_EXPIRED",
  "DELEGATION_INVALID",
  "DELEGATION_EXPIRED",
  "DELEGATION_BUDGET_EXCEEDED",
  "DELEGATION_INSUFFICIENT_FUNDS",
  "DELEGATION_PROOF_INVALID",
  "DELEGATION_PROOF_EXPIRED",
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

const REASON_CODE_SET: ReadonlySet<string> = new Set(REASON_CODES);

export function isReasonCode(value: string): value is ReasonCode {
  return REASON_CODE_SET.has(value);
}
