import type { Signature } from "@solana/kit";
import { reject, type Rejection } from "../rejection.ts";
import { MODE_RECEIPT_MISMATCH, MODE_TRANSFER_MISMATCH, MODE_TX_FAILED } from "./mode-reasons.ts";
import { balanceChangeOf, type TokenBalanceChange } from "./token-balance-changes.ts";

/** What the receipt check needs of the transaction a receipt names (the Ledger port's effects fit it). */
export type TransactionEffectsView = Readonly<{ err: string | null; tokenBalanceChanges: readonly TokenBalanceChange[] }>;

/** What the named transaction must have done, per the receipt and the requirements. */
export type ReceiptTransfer = Readonly<{
  txSignature: Signature;
  /** The receipt's payer. */
  payer: string;
  payTo: string;
  asset: string;
  /** The total the payer paid (the receipt's `amount`, equal to the requirements'). */
  amount: bigint;
  /** The receipt's `fee_amount`: the part of `amount` that went to the protocol treasury. */
  feeAmount: bigint;
}>;

/**
 * SECURITY: a receipt is only a claim about a transfer; the ledger's record of the transaction
 * it names is what shows the payment happened. The transaction must have succeeded, the payer's
 * balance of the asset must have fallen by exactly `amount` and payTo's must have risen by exactly
 * `amount - fee_amount` (x84: the payee receives the amount net of the protocol fee). Balance
 * changes count every movement in the transaction, transfers by a program's CPI included.
 */
export function checkReceiptTransfer(effects: TransactionEffectsView | null, expected: ReceiptTransfer): Rejection | null {
  const signature = expected.txSignature;
  if (effects === null) return reject("MODE_TX_NOT_FOUND", `transaction ${signature} was not found on the ledger at confirmed commitment`);
  if (effects.err !== null) return reject(MODE_TX_FAILED, `transaction ${signature} failed on chain: ${effects.err}`);
  if (expected.feeAmount > expected.amount) {
    return reject(MODE_RECEIPT_MISMATCH, `receipt fee_amount ${expected.feeAmount} exceeds its amount ${expected.amount}`);
  }
  const paid = -balanceChangeOf(effects.tokenBalanceChanges, expected.payer, expected.asset);
  if (paid !== expected.amount) {
    return reject(MODE_TRANSFER_MISMATCH, `transaction ${signature} moved ${paid} of ${expected.asset} from payer ${expected.payer}, expected ${expected.amount}`);
  }
  const received = balanceChangeOf(effects.tokenBalanceChanges, expected.payTo, expected.asset);
  const net = expected.amount - expected.feeAmount;
  if (received !== net) {
    return reject(MODE_TRANSFER_MISMATCH, `transaction ${signature} moved ${received} of ${expected.asset} to payTo ${expected.payTo}, expected ${net} (amount ${expected.amount} - fee ${expected.feeAmount})`);
  }
  return null;
}
