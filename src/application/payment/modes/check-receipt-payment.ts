import type { Address, Signature } from "@solana/kit";
import { findReceiptPda } from "../../../domain/modes/mode-pdas.ts";
import type { ModeExtensions } from "../../../domain/modes/mode-extensions.ts";
import { MODE_TX_FAILED } from "../../../domain/modes/mode-reasons.ts";
import { checkReceiptClaimWindow, verifyReceiptClaimSignature } from "../../../domain/modes/receipt-claim-proof.ts";
import { checkReceiptAccount, checkReceiptAddress } from "../../../domain/modes/receipt-check.ts";
import { checkReceiptTransfer } from "../../../domain/modes/receipt-transfer-check.ts";
import type { PaymentRequirements } from "../../../domain/payment/payment-request.ts";
import { reject, type Rejection } from "../../../domain/rejection.ts";
import type { Clock } from "../../ports/clock.ts";
import type { Ledger, SignatureStatus } from "../../ports/ledger.ts";
import { refused } from "../payment-refusal.ts";
import type { ModeVerificationResult } from "./mode-result.ts";

export type ReceiptModeDeps = Readonly<{ ledger: Ledger; programId: Address; clock: Clock }>;

/** What the request says the receipt must pay for, beyond the requirements' amount, asset and payTo. */
export type ReceiptTerms = Readonly<{
  requirements: PaymentRequirements;
  /** `expectedResourceOf(request)`; null: no resource to compare. */
  resource: string | null;
}>;

export type ReceiptModeExtensions = ModeExtensions & Readonly<{ mode: "atomic" | "attestation"; txSignature: Signature }>;

/** The transfer must have landed, without error, at `confirmed` or better. */
function checkTransactionStatus(signature: Signature, status: SignatureStatus | null | undefined): Rejection | null {
  if (!status) return reject("MODE_TX_NOT_FOUND", `transaction ${signature} was not found on the ledger`);
  if (status.err !== null) return reject(MODE_TX_FAILED, `transaction ${signature} failed on chain: ${status.err}`);
  if (status.confirmationStatus === "processed") return reject(MODE_TX_FAILED, `transaction ${signature} is not confirmed yet`);
  return null;
}

/**
 * The claim proof's presence and time window: no ledger read before these pass, so a request
 * without a fresh proof costs nothing but parsing.
 */
function checkClaimPresented(extensions: ReceiptModeExtensions, nowMs: number): Rejection | null {
  if (extensions.signature === undefined || extensions.timestamp === undefined) {
    return reject(
      "MODE_PROOF_INVALID",
      `${extensions.mode} payments need the payer's receipt-claim proof: extensions.signature and extensions.timestamp (see docs/settlement-modes.md)`,
    );
  }
  return checkReceiptClaimWindow(extensions.timestamp, nowMs);
}

/**
 * Atomic and attestation modes: the payment already happened on chain. Nothing is signed or
 * sent; the transfer's status, the program's PaymentReceipt and the transaction's token
 * movements are checked against the request, and the presenter must prove it is the payer.
 *
 * SECURITY: a receipt is public. Without the claim proof, whoever presented someone else's
 * receipt first would be told the payment is valid (and have it recorded as theirs).
 */
export async function checkReceiptPayment(extensions: ReceiptModeExtensions, terms: ReceiptTerms, deps: ReceiptModeDeps): Promise<ModeVerificationResult> {
  const { requirements } = terms;
  const [receiptPda] = await findReceiptPda(deps.programId, extensions.paymentId);
  const early = checkReceiptAddress(extensions.receiptPda, receiptPda) ?? checkClaimPresented(extensions, deps.clock.now());
  if (early) return refused(early, extensions.payer);

  const [statuses, account] = await Promise.all([
    deps.ledger.getSignatureStatuses([extensions.txSignature]),
    deps.ledger.getAccount(receiptPda),
  ]);
  const statusProblem = checkTransactionStatus(extensions.txSignature, statuses[0]);
  if (statusProblem) return refused(statusProblem, extensions.payer);
  if (account === null) {
    return refused(reject("MODE_RECEIPT_NOT_FOUND", `no PaymentReceipt at ${receiptPda} for this paymentId`), extensions.payer);
  }

  const verdict = checkReceiptAccount(account, {
    mode: extensions.mode,
    programId: deps.programId,
    paymentId: extensions.paymentId,
    txSignature: extensions.txSignature,
    amount: requirements.amount,
    asset: requirements.asset,
    payTo: requirements.payTo,
    ...(extensions.payer ? { payer: extensions.payer } : {}),
    ...(terms.resource !== null ? { resource: terms.resource } : {}),
    ...(requirements.extra["agentMint"] !== undefined ? { agentMint: requirements.extra["agentMint"] } : {}),
  });
  if (!verdict.ok) return refused(verdict.rejection, extensions.payer);
  const receipt = verdict.receipt;

  // checkClaimPresented made sure both are there.
  const claim = { paymentIdHex: extensions.paymentIdHex, resource: receipt.resource, timestamp: extensions.timestamp ?? 0 };
  const claimProblem = await verifyReceiptClaimSignature(claim, extensions.signature ?? new Uint8Array(0), receipt.payer);
  if (claimProblem) return refused(claimProblem, extensions.payer);

  // Read only for a proven payer: an anonymous request never makes us fetch a transaction.
  const transferProblem = checkReceiptTransfer(await deps.ledger.getTransactionEffects(extensions.txSignature), {
    txSignature: extensions.txSignature,
    payer: receipt.payer,
    payTo: requirements.payTo,
    asset: requirements.asset,
    amount: requirements.amount,
    feeAmount: receipt.feeAmount,
  });
  if (transferProblem) return refused(transferProblem, receipt.payer);

  return Object.freeze({
    ok: true,
    mode: extensions.mode,
    paymentId: extensions.paymentIdHex,
    payer: receipt.payer,
    amount: receipt.amount,
    txSignature: extensions.txSignature,
    receiptPda,
  });
}
