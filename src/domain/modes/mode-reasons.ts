import type { ReasonCode } from "../reason-codes.ts";

/**
 * A receipt that exists but disagrees with the request (other payment id, transaction, mode,
 * resource or agent, not owned by the program, undecodable, or at an address other than the
 * derived one).
 */
export const RECEIPT_MISMATCH: ReasonCode = "MODE_RECEIPT_MISMATCH";

/** The transaction named by txSignature exists but failed or is not yet confirmed. */
export const TX_NOT_CONFIRMED: ReasonCode = "MODE_TX_FAILED";

/** The transaction a receipt names did not move the receipt's amount from the payer to payTo. */
export const TRANSFER_MISMATCH: ReasonCode = "MODE_TRANSFER_MISMATCH";

/** The payer's token balance is below the amount although the allowance covers it. */
export const INSUFFICIENT_FUNDS: ReasonCode = "DELEGATION_INSUFFICIENT_FUNDS";
