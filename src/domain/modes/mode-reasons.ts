import type { ReasonCode } from "../reason-codes.ts";

/**
 * A receipt that exists but disagrees with the request (other payment id, transaction, mode,
 * resource or agent, not owned by the program, undecodable, or at an address other than the
 * derived one).
 */
export const MODE_RECEIPT_MISMATCH = "MODE_RECEIPT_MISMATCH" satisfies ReasonCode;

/** The transaction named by txSignature exists but failed, or is only `processed` so far. */
export const MODE_TX_FAILED = "MODE_TX_FAILED" satisfies ReasonCode;

/** The transaction a receipt names did not move the receipt's amount from the payer to payTo. */
export const MODE_TRANSFER_MISMATCH = "MODE_TRANSFER_MISMATCH" satisfies ReasonCode;

/** The payer's token balance is below the amount although the allowance covers it. */
export const DELEGATION_INSUFFICIENT_FUNDS = "DELEGATION_INSUFFICIENT_FUNDS" satisfies ReasonCode;
