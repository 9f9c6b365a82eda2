import type { Address, Signature } from "@solana/kit";
import { findReceiptPda } from "../../domain/modes/mode-pdas.ts";
import type { ModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { TX_NOT_CONFIRMED } from "../../domain/modes/mode-reasons.ts";
import { checkReceiptAccount, checkReceiptAddress } from "../../domain/modes/receipt-check.ts";
import type { PaymentRequirements } from "../../domain/payment/payment-request.ts";
import { reject, type Rejection } from "../../domain/verification/rejection.ts";
import type { Ledger, SignatureStatus } from "../ports/ledger.ts";
import { modeRejected, type ModeVerificationResult } from "./mode-result.ts";

export type ReceiptModeDeps = Readonly<{ ledger: Ledger; programId: Address }>;

/** The transfer must have landed, without error, at `confirmed` or better. */
function checkTransactionStatus(signature: Signature, status: SignatureStatus | null | undefined): Rejection | null {
  if (!status) return reject("MODE_TX_NOT_FOUND", `transaction ${signature} was not found on the ledger`);
  if (status.err !== null) return reject(TX_NOT_CONFIRMED, `transaction ${signature} failed on chain: ${status.err}`);
  if (status.confirmationStatus === "processed") return reject(TX_NOT_CONFIRMED, `transaction ${signature} is not confirmed yet`);
  return null;
}

/**
 * Atomic and attestation modes: the payment already happened on chain. Nothing is signed or
 * sent; the transfer's status and the program's PaymentReceipt are checked against the request.
 */
export async function verifyReceiptMode(
  extensions: ModeExtensions & Readonly<{ mode: "atomic" | "attestation"; txSignature: Signature }>,
  requirements: PaymentRequirements,
  deps: ReceiptModeDeps,
): Promise<ModeVerificationResult> {
  const [receiptPda] = await findReceiptPda(deps.programId, extensions.paymentId);
  const addressProblem = checkReceiptAddress(extensions.receiptPda, receiptPda);
  if (addressProblem) return modeRejected(addressProblem, extensions.payer);

  const [statuses, account] = await Promise.all([
    deps.ledger.getSignatureStatuses([extensions.txSignature]),
    deps.ledger.getAccount(receiptPda),
  ]);
  const statusProblem = checkTransactionStatus(extensions.txSignature, statuses[0]);
  if (statusProblem) return modeRejected(statusProblem, extensions.payer);
  if (account === null) {
    return modeRejected(reject("MODE_RECEIPT_NOT_FOUND", `no PaymentReceipt at ${receiptPda} for this paymentId`), extensions.payer);
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
  });
  if (!verdict.ok) return modeRejected(verdict.rejection, extensions.payer);

  return Object.freeze({
    ok: true,
    mode: extensions.mode,
    paymentId: extensions.paymentIdHex,
    payer: verdict.receipt.payer,
    amount: verdict.receipt.amount,
    txSignature: extensions.txSignature,
    receiptPda,
  });
}
