import type { TokenAccountView } from "../payment/token-account-view.ts";
import type { Address } from "@solana/kit";
import { reject, type Rejection } from "../rejection.ts";
import { DELEGATION_INSUFFICIENT_FUNDS } from "./mode-reasons.ts";

/** The SPL Token account fields the delegated modes depend on (decoded by the caller). */
export type { TokenAccountView } from "../payment/token-account-view.ts";

export type TokenDelegateUse = Readonly<{
  payer: Address;
  asset: Address;
  amount: bigint;
  /** The facilitator's fee payers: the only keys we can sign a delegated transfer with. */
  feePayers: readonly Address[];
}>;

/** Which of our keys holds the SPL allowance on the payer's token account. */
export type TokenDelegateGrant = Readonly<{ sourceTokenAccount: Address; owner: Address; delegateAuthority: Address }>;

/**
 * The payer's token account must let one of our fee payers move `amount` as SPL delegate.
 * SPL Token enforces the allowance again at transfer time; checking here answers /verify
 * truthfully and keeps us from paying fees for a transfer that must fail.
 */
export function checkTokenDelegate(account: TokenAccountView | null, use: TokenDelegateUse): TokenDelegateGrant | Rejection {
  if (account === null) return reject("DELEGATION_INVALID", `payer ${use.payer} has no token account for ${use.asset}`);
  if (account.owner !== use.payer || account.mint !== use.asset) {
    return reject("DELEGATION_INVALID", `token account ${account.address} is not ${use.payer}'s account for ${use.asset}`);
  }
  if (account.frozen) return reject("DELEGATION_INVALID", `token account ${account.address} is frozen`);
  // SECURITY: we only ever sign as our own fee payers; an allowance to anyone else is not ours to use.
  const delegate = account.delegate;
  if (delegate === null || !use.feePayers.includes(delegate)) {
    return reject("DELEGATION_INVALID", `token account ${account.address} does not name a facilitator fee payer as SPL delegate`);
  }
  if (account.delegatedAmount < use.amount) {
    return reject("DELEGATION_BUDGET_EXCEEDED", `SPL allowance ${account.delegatedAmount} is below the amount ${use.amount}`);
  }
  if (account.amount < use.amount) return reject(DELEGATION_INSUFFICIENT_FUNDS, `token balance ${account.amount} is below the amount ${use.amount}`);
  return Object.freeze({ sourceTokenAccount: account.address, owner: account.owner, delegateAuthority: delegate });
}
