import type { TokenAccountView } from "../payment/token-account-view.ts";
import type { PaymentRequirements } from "../payment/payment-request.ts";
import type { TransferChecked } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";

/**
 * SECURITY: the payment must be fundable before we sign anything: each co-signature may be a paid
 * KMS or HSM call, and a transfer that must fail still costs the fee payer its fee. Reads of the
 * source token account answer: does it exist for this mint, may the authority move `amount` out of
 * it, and is its owner someone other than the recipient (a self-payment through a second account
 * or a delegate).
 */
export function checkSourceFunds(
  account: TokenAccountView | null,
  transfer: TransferChecked,
  requirements: PaymentRequirements,
  /** Everything the transaction moves out of the source (the payment plus any protocol fee). */
  total: bigint = transfer.amount,
): Rejection | null {
  if (account === null) return reject("INSUFFICIENT_FUNDS", `source ${transfer.source} is not an SPL token account: the payer holds nothing there`);
  if (account.mint !== transfer.mint) {
    return reject("MINT_MISMATCH", `source ${transfer.source} holds ${account.mint}, not ${transfer.mint}`);
  }
  const selfPayment = checkSourceNotPayee(account, transfer, requirements);
  if (selfPayment) return selfPayment;
  if (account.frozen) return reject("INSUFFICIENT_FUNDS", `source ${transfer.source} is frozen`);
  const spendable = spendableBy(account, transfer.authority);
  if (spendable === null) {
    return reject("INSUFFICIENT_FUNDS", `${transfer.authority} is neither the owner nor the delegate of source ${transfer.source}`);
  }
  if (spendable < total) {
    return reject("INSUFFICIENT_FUNDS", `source ${transfer.source} can pay ${spendable}, the payment needs ${total}`);
  }
  return null;
}

/** SECURITY: the source's owner is not the recipient (a self-payment through a second account or a delegate). */
export function checkSourceNotPayee(
  account: Readonly<{ owner: string }>,
  transfer: TransferChecked,
  requirements: PaymentRequirements,
): Rejection | null {
  return account.owner === requirements.payTo
    ? reject("SELF_PAYMENT", `source ${transfer.source} belongs to the recipient payTo ${requirements.payTo}`)
    : null;
}

/** What `authority` may move: the whole balance as owner, at most the allowance as delegate. */
function spendableBy(account: TokenAccountView, authority: string): bigint | null {
  if (account.owner === authority) return account.amount;
  if (account.delegate === authority) return account.amount < account.delegatedAmount ? account.amount : account.delegatedAmount;
  return null;
}

/**
 * SECURITY: a destination that is not a token account of the mint makes the transfer fail in
 * preflight, after our key signed: a free KMS/HSM signature per request. It is read in the same
 * call as the source and refused before signing.
 */
export function checkDestinationAccount(account: TokenAccountView | null, transfer: TransferChecked): Rejection | null {
  if (account === null) {
    return reject("RECIPIENT_MISMATCH", `destination ${transfer.destination} is not an SPL token account: the payee must create it first`);
  }
  if (account.mint !== transfer.mint) return reject("RECIPIENT_MISMATCH", `destination ${transfer.destination} holds ${account.mint}, not ${transfer.mint}`);
  if (account.frozen) return reject("RECIPIENT_MISMATCH", `destination ${transfer.destination} is frozen`);
  return null;
}
