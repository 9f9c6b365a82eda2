import type { Address } from "@solana/kit";
import type { AtaDeriver } from "../payment/associated-token-account.ts";
import type { PaymentRequirements } from "../payment/payment-request.ts";
import type { TransactionView, TransferChecked } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";

export function checkMint(transfer: TransferChecked, requirements: PaymentRequirements): Rejection | null {
  return transfer.mint === requirements.asset
    ? null
    : reject("MINT_MISMATCH", `transfer mint ${transfer.mint} differs from required asset ${requirements.asset}`);
}

/**
 * SECURITY: TransferChecked with the wrong decimals fails on chain after the fee is charged;
 * refusing it here keeps the fee payer from paying for a transfer that cannot succeed.
 */
export function checkDecimals(transfer: TransferChecked, assetDecimals: number): Rejection | null {
  return transfer.decimals === assetDecimals
    ? null
    : reject("AMOUNT_MISMATCH", `transfer states ${transfer.decimals} decimals, the asset has ${assetDecimals}`);
}

/** `expected` is the required amount, less the protocol fee when the payment is split. */
export function checkAmount(transfer: TransferChecked, expected: bigint): Rejection | null {
  return transfer.amount === expected ? null : reject("AMOUNT_MISMATCH", `expected amount ${expected}, received ${transfer.amount}`);
}

/**
 * SECURITY: funds must reach the payee: the destination is `payTo` itself (already a token
 * account) or the associated token account of `payTo` for the asset under the mint's token
 * program (the transfer's program, already checked to be the mint's owner).
 */
export async function checkRecipient(
  transfer: TransferChecked,
  requirements: PaymentRequirements,
  atas: AtaDeriver,
): Promise<Rejection | null> {
  if (transfer.destination === requirements.payTo) return null;
  let expected: Address;
  try {
    expected = await atas.derive(requirements.payTo as Address, requirements.asset as Address, transfer.program);
  } catch {
    return reject("RECIPIENT_MISMATCH", `payTo ${requirements.payTo} is not a valid address`);
  }
  return transfer.destination === expected
    ? null
    : reject(
        "RECIPIENT_MISMATCH",
        `transfer destination ${transfer.destination} is neither payTo nor its associated token account ${expected}`,
      );
}

/** The transfer authority is the payer; it must be one of the message's required signers. */
export function checkAuthorityIsSigner(view: TransactionView, transfer: TransferChecked): Rejection | null {
  const isSigner = view.signatureSlots.some((slot, index) => index > 0 && slot.address === transfer.authority);
  return isSigner
    ? null
    : reject("PAYER_SIGNATURE_INVALID", `transfer authority ${transfer.authority} is not a signer of the transaction`);
}

/**
 * SECURITY: a payment to oneself moves nothing, yet the fee payer pays its fee: an attacker could
 * drain us with free self-transfers. Refused when the authority is payTo, or the tokens stay in one
 * account. (The source account's owner is compared with payTo once it is read, in the funds check.)
 */
export function checkNotSelfPayment(transfer: TransferChecked, requirements: PaymentRequirements): Rejection | null {
  if (transfer.authority === requirements.payTo) {
    return reject("SELF_PAYMENT", `the payer ${transfer.authority} is the recipient payTo`);
  }
  if (transfer.source === transfer.destination || transfer.source === requirements.payTo) {
    return reject("SELF_PAYMENT", `the transfer's source ${transfer.source} is also its destination`);
  }
  return null;
}
