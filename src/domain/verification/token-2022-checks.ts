import type { TransferChecked } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";
import type { Token2022Policy } from "../token/mint-policy.ts";
import type { MintView } from "../token/mint-view.ts";
import { certainFee, feeUnder, transferFeeTermsOf } from "../token/transfer-fee.ts";

/**
 * SECURITY: the payee receives exactly `expected`. For a plain TransferChecked that is its amount,
 * and the mint must withhold nothing from it; for TransferCheckedWithFee (only under
 * TOKEN_2022_TRANSFER_FEE=gross-up) it is the amount less the stated fee, and the stated fee must
 * be the mint's fee on that amount (the program checks it against the epoch's schedule too).
 */
export function checkTransferAmount(transfer: TransferChecked, expected: bigint, mint: MintView | null, policy: Token2022Policy): Rejection | null {
  if (transfer.fee === null) {
    if (transfer.amount !== expected) return reject("AMOUNT_MISMATCH", `expected amount ${expected}, received ${transfer.amount}`);
    return checkNothingWithheld(transfer, mint, policy);
  }
  if (policy.transferFee !== "gross-up") {
    return reject("UNEXPECTED_TOKEN_INSTRUCTION", "TransferCheckedWithFee is accepted only when this facilitator runs with TOKEN_2022_TRANSFER_FEE=gross-up");
  }
  const terms = mint ? transferFeeTermsOf(mint) : null;
  if (terms === null) return reject("UNEXPECTED_TOKEN_INSTRUCTION", `TransferCheckedWithFee on mint ${transfer.mint}, which has no transfer fee`);
  const received = transfer.amount - transfer.fee;
  if (received !== expected) {
    return reject("AMOUNT_MISMATCH", `the payee would receive ${received} (${transfer.amount} less a fee of ${transfer.fee}); expected ${expected}`);
  }
  const fees = [feeUnder(terms.older, transfer.amount), feeUnder(terms.newer, transfer.amount)];
  return fees.includes(transfer.fee)
    ? null
    : reject("AMOUNT_MISMATCH", `the stated fee ${transfer.fee} is not the mint's fee on ${transfer.amount} (${[...new Set(fees)].join(" or ")})`);
}

/** A plain TransferChecked of a fee-bearing mint: refused unless the fee on its amount is certainly 0. */
export function checkNothingWithheld(transfer: TransferChecked, mint: MintView | null, policy: Token2022Policy): Rejection | null {
  const terms = mint ? transferFeeTermsOf(mint) : null;
  const withheld = certainFee(terms, transfer.amount);
  if (withheld === 0n) return null;
  const what = withheld === null ? "a fee that depends on the epoch" : `a fee of ${withheld}`;
  const remedy = policy.transferFee === "gross-up" ? "; pay with TransferCheckedWithFee, grossed up so the payee receives the amount" : "";
  return reject("TRANSFER_FEE_NOT_ALLOWED", `mint ${transfer.mint} withholds ${what} on a transfer of ${transfer.amount}, so the payee would receive less${remedy}`);
}
