import { bytesEqual, getBase58Encoder, type Address, type Signature } from "@solana/kit";
import { reject, type Rejection } from "../rejection.ts";
import type { OwnedAccount } from "./owned-account.ts";
import { MODE_RECEIPT_MISMATCH } from "./mode-reasons.ts";
import { decodePaymentReceipt, type PaymentReceipt } from "./payment-receipt.ts";
import { receiptResourceMatches } from "./receipt-resource.ts";

const base58 = getBase58Encoder();

/** What the receipt of an atomic or attestation payment must say. */
export type ReceiptExpectation = Readonly<{
  mode: "atomic" | "attestation";
  programId: Address;
  paymentId: Uint8Array;
  txSignature: Signature;
  amount: bigint;
  asset: string;
  payTo: string;
  /** `extensions.payer`, when the client named one. */
  payer?: Address;
  /**
   * The resource paid for (`expectedResourceOf`): the receipt's `resource` must name it (see
   * `receiptResourceMatches`). Absent when the request names no resource: then not compared.
   */
  resource?: string;
  /** `paymentRequirements.extra.agentMint`, when given: the receipt's `nft_mint` must equal it. */
  agentMint?: unknown;
}>;

export type ReceiptVerdict = Readonly<{ ok: true; receipt: PaymentReceipt }> | Readonly<{ ok: false; rejection: Rejection }>;

/**
 * SECURITY: the receipt is looked up at the address we derive from the paymentId, never at one
 * the client names; a client-given address must agree. Otherwise a client could point at a
 * receipt of someone else's payment (or at an account it controls) and have it recorded as its own.
 */
export function checkReceiptAddress(given: Address | undefined, derived: Address): Rejection | null {
  if (given === undefined || given === derived) return null;
  return reject(MODE_RECEIPT_MISMATCH, `extensions.receiptPda ${given} is not the receipt address ${derived} derived from paymentId`);
}

/**
 * SECURITY: only the registry program can have written a receipt it owns; an account owned by
 * anything else at that address (e.g. lamports sent to an uncreated PDA) proves nothing.
 */
function checkReceiptOwner(account: OwnedAccount, programId: Address): Rejection | null {
  return account.owner === programId
    ? null
    : reject(MODE_RECEIPT_MISMATCH, `receipt ${account.address} is owned by ${account.owner}, not the registry program ${programId}`);
}

/** Field by field against the request; the first difference wins. */
function checkReceiptFields(receipt: PaymentReceipt, expected: ReceiptExpectation): Rejection | null {
  if (!bytesEqual(receipt.paymentId, expected.paymentId)) return reject(MODE_RECEIPT_MISMATCH, "receipt payment_id differs from extensions.paymentId");
  if (receipt.settlementMode !== expected.mode) {
    return reject(MODE_RECEIPT_MISMATCH, `receipt settlement_mode is ${receipt.settlementMode}, not ${expected.mode}`);
  }
  if (!bytesEqual(receipt.txSignature, base58.encode(expected.txSignature))) {
    return reject(MODE_RECEIPT_MISMATCH, "receipt tx_signature differs from extensions.txSignature");
  }
  if (receipt.amount !== expected.amount) {
    return reject("AMOUNT_MISMATCH", `receipt amount is ${receipt.amount}, expected ${expected.amount}`);
  }
  if (receipt.tokenMint !== expected.asset) return reject("MINT_MISMATCH", `receipt token_mint is ${receipt.tokenMint}, expected ${expected.asset}`);
  if (receipt.payee !== expected.payTo) return reject("RECIPIENT_MISMATCH", `receipt payee is ${receipt.payee}, expected ${expected.payTo}`);
  if (expected.payer !== undefined && receipt.payer !== expected.payer) {
    return reject(MODE_RECEIPT_MISMATCH, `receipt payer is ${receipt.payer}, not extensions.payer ${expected.payer}`);
  }
  return checkReceiptTarget(receipt, expected);
}

/**
 * SECURITY: a receipt pays for one resource of one agent. Without these checks a payment for a
 * cheap resource (or another agent's) with the same amount and payee could be presented here.
 */
function checkReceiptTarget(receipt: PaymentReceipt, expected: ReceiptExpectation): Rejection | null {
  if (expected.resource !== undefined && !receiptResourceMatches(receipt.resource, expected.resource)) {
    return reject(MODE_RECEIPT_MISMATCH, `receipt resource ${JSON.stringify(receipt.resource)} does not name the resource paid for, ${JSON.stringify(expected.resource)}`);
  }
  if (expected.agentMint !== undefined && expected.agentMint !== null && receipt.nftMint !== expected.agentMint) {
    return reject(MODE_RECEIPT_MISMATCH, `receipt nft_mint is ${receipt.nftMint}, not extra.agentMint ${String(expected.agentMint)}`);
  }
  return null;
}

/**
 * Checks a fetched receipt account: owned by the registry program, decodes as a
 * PaymentReceipt, and records exactly this payment (see docs/settlement-modes.md).
 */
export function checkReceiptAccount(account: OwnedAccount, expected: ReceiptExpectation): ReceiptVerdict {
  const ownerProblem = checkReceiptOwner(account, expected.programId);
  if (ownerProblem) return { ok: false, rejection: ownerProblem };
  const decoded = decodePaymentReceipt(account.data);
  if (!decoded.ok) return { ok: false, rejection: reject(MODE_RECEIPT_MISMATCH, `account ${account.address} is not a PaymentReceipt: ${decoded.detail}`) };
  const fieldProblem = checkReceiptFields(decoded.value, expected);
  return fieldProblem ? { ok: false, rejection: fieldProblem } : { ok: true, receipt: decoded.value };
}
