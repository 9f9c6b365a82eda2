import type { Address } from "@solana/kit";
import type { AtaDeriver } from "../payment/associated-token-account.ts";
import type { PaymentRequirements } from "../payment/payment-request.ts";
import { decodeBase64Transaction, inspectWireTransaction } from "../transaction/inspect-transaction.ts";
import type { TransactionView, TransferChecked } from "../transaction/transaction-view.ts";
import { checkFeePayerIsOurs, checkFeePayerNotInInstructions, checkFeePayerSlotEmpty } from "./fee-payer-checks.ts";
import { reject, type Rejection } from "../rejection.ts";
import { checkPayerSignatures, type VerificationKeyCache } from "./signature-checks.ts";
import { checkComputeLimits, checkPriorityFee, checkSignatureCount, readComputeBudget, transactionFeeLamports } from "./fee-checks.ts";
import {
  checkInstructionCount,
  checkNoLookupTables,
  checkProgramsAllowed,
  checkTransactionSize,
  findTransfers,
} from "./transaction-checks.ts";
import { type ProtocolFeeSplit, checkFeeTransfer, feeOf, refuseUnagreedSplit, splitFor } from "./protocol-fee.ts";
import { checkAuthorityIsSigner, checkDecimals, checkMint, checkNotSelfPayment, checkRecipient } from "./transfer-checks.ts";
import type { VerificationPolicy } from "./verification-policy.ts";
import type { MintView } from "../token/mint-view.ts";
import { checkNothingWithheld, checkTransferAmount } from "./token-2022-checks.ts";
import { DEFAULT_TOKEN_2022_POLICY, type Token2022Policy } from "../token/mint-policy.ts";
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";

export type TransactionCheckInput = Readonly<{
  /** Base64 wire transaction from `paymentPayload.payload.transaction`. */
  transaction: string | null;
  requirements: PaymentRequirements;
  feePayers: readonly Address[];
  policy: VerificationPolicy;
  assetDecimals: number;
  atas: AtaDeriver;
  /** Imported payer keys, shared across checks; default: a fresh cache per check. */
  keys?: VerificationKeyCache;
  /** The operator's protocol-fee split; null (default) means every payment is one transfer. */
  protocolFee?: ProtocolFeeSplit | null;
  /**
   * The asset's mint as the ledger has it: its owner is the token program the transfer must call,
   * its decimals and transfer fee are checked against the transfer. Absent: an SPL Token mint of
   * `assetDecimals` (callers that check a transaction alone).
   */
  mint?: MintView;
  /** TOKEN_2022_TRANSFER_FEE (gross-up admits TransferCheckedWithFee); default refuse. */
  token2022?: Token2022Policy;
}>;

export type TransactionVerdict =
  | Readonly<{
      ok: true;
      view: TransactionView;
      /** The transfer to payTo. */
      transfer: TransferChecked;
      /** Every transfer: the payment, then the protocol fee when the payment is split. */
      transfers: readonly TransferChecked[];
      payer: Address;
      /** What landing this transaction costs the fee payer: base fee per signature plus priority fee. */
      feeLamports: bigint;
    }>
  /** `payer` is set once the transfer was found, so answers can name who tried to pay. */
  | Readonly<{ ok: false; rejection: Rejection; payer?: Address }>;

/**
 * Runs every transaction rule in order, cheapest first, and returns the first rejection.
 * Pure apart from hashing (ATA derivation, signatures); never throws for a bad payment.
 */
export async function verifyPaymentTransaction(input: TransactionCheckInput): Promise<TransactionVerdict> {
  if (input.transaction === null) {
    return { ok: false, rejection: reject("INVALID_TRANSACTION", "paymentPayload.payload.transaction is missing") };
  }
  const wire = decodeBase64Transaction(input.transaction);
  if (!(wire instanceof Uint8Array)) return { ok: false, rejection: wire };
  const tooLarge = checkTransactionSize(wire, input.policy);
  if (tooLarge) return { ok: false, rejection: tooLarge };
  const inspected = inspectWireTransaction(wire);
  if (!inspected.ok) return inspected;
  const view = inspected.view;

  const tokenProgram = input.mint?.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  const structural = checkStructure(view, input, tokenProgram);
  if (structural) return { ok: false, rejection: structural };
  const budget = readComputeBudget(view);
  if ("reason" in budget) return { ok: false, rejection: budget };
  const costly = checkComputeLimits(budget, input.policy) ?? checkPriorityFee(budget, input.policy);
  if (costly) return { ok: false, rejection: costly };
  const split = splitFor(input.requirements, input.protocolFee ?? null);
  const found = findTransfers(view, split ? 2 : 1);
  if (!found.ok) {
    // Two transfers where no split applies is a client splitting off a protocol fee (x84's does):
    // say which split this facilitator expects rather than only counting instructions.
    const unsplit = split === null && found.transferCount === 2 ? refuseUnagreedSplit(input.requirements, input.protocolFee ?? null) : null;
    return { ok: false, rejection: unsplit ?? found.rejection };
  }
  const [transfer, fee] = found.transfers as [TransferChecked, TransferChecked | undefined];
  const payer = transfer.authority;
  const payeeAmount = split ? input.requirements.amount - feeOf(input.requirements.amount, split) : input.requirements.amount;

  const rejection =
    checkFeePayerNotInInstructions(view, input.feePayers) ??
    checkMint(transfer, input.requirements) ??
    checkDecimals(transfer, input.mint?.decimals ?? input.assetDecimals) ??
    checkTransferAmount(transfer, payeeAmount, input.mint ?? null, input.token2022 ?? DEFAULT_TOKEN_2022_POLICY) ??
    (fee ? checkNothingWithheld(fee, input.mint ?? null, input.token2022 ?? DEFAULT_TOKEN_2022_POLICY) : null) ??
    checkNotSelfPayment(transfer, input.requirements) ??
    (await checkRecipient(transfer, input.requirements, input.atas)) ??
    (split && fee ? await checkFeeTransfer(fee, transfer, split, input.requirements, input.atas) : null) ??
    checkAuthorityIsSigner(view, transfer) ??
    (await checkPayerSignatures(view, input.keys));
  if (rejection) return { ok: false, rejection, payer };
  return { ok: true, view, transfer, transfers: found.transfers, payer, feeLamports: transactionFeeLamports(view.signatureSlots.length, budget) };
}

/** Rules on the message's shape that need neither the transfer nor any hashing. */
function checkStructure(view: TransactionView, input: TransactionCheckInput, tokenProgram: Address): Rejection | null {
  return (
    checkNoLookupTables(view) ??
    checkFeePayerIsOurs(view, input.feePayers, input.requirements.extra["feePayer"]) ??
    checkFeePayerSlotEmpty(view) ??
    checkSignatureCount(view) ??
    checkInstructionCount(view, input.policy) ??
    checkProgramsAllowed(view, tokenProgram)
  );
}
