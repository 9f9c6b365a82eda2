import type { ReasonCode } from "../reason-codes.ts";

/**
 * A receipt that exists but disagrees with the request (other payment id, transaction or mode,
 * not owned by the program, undecodable, or at an address other than the derived one).
 * MODE_RECEIPT_MISMATCH is proposed for the closed list; until it is added, MODE_INVALID
 * is the closest existing code. Changing this one constant switches every use.
 */
export const RECEIPT_MISMATCH: ReasonCode = "MODE_INVALID";

/**
 * The transaction named by txSignature exists but failed or is not yet confirmed.
 * MODE_TX_FAILED is proposed; MODE_TX_NOT_FOUND is the closest existing code.
 */
export const TX_NOT_CONFIRMED: ReasonCode = "MODE_TX_NOT_FOUND";

/**
 * The payer's token balance is below the amount although the allowance covers it.
 * INSUFFICIENT_FUNDS is proposed; DELEGATION_BUDGET_EXCEEDED is the closest existing code.
 */
export const INSUFFICIENT_FUNDS: ReasonCode = "DELEGATION_BUDGET_EXCEEDED";
