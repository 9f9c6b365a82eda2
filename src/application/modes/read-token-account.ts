import { isSome, type Address } from "@solana/kit";
import { AccountState, getTokenDecoder, getTokenSize, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { TokenAccountView } from "../../domain/modes/token-delegate-check.ts";
import type { AccountSnapshot, Ledger } from "../ports/ledger.ts";

const TOKEN_ACCOUNT_SIZE = getTokenSize();

/**
 * The SPL Token account at `address` as the delegated checks see it, or null when it is
 * missing, not owned by SPL Token, or not an initialized token account.
 */
export async function readTokenAccount(ledger: Ledger, address: Address): Promise<TokenAccountView | null> {
  return toTokenAccountView(await ledger.getAccount(address));
}

export function toTokenAccountView(account: AccountSnapshot | null): TokenAccountView | null {
  // SECURITY: bytes shaped like a token account mean nothing unless SPL Token owns them.
  if (account === null || account.owner !== TOKEN_PROGRAM_ADDRESS || account.data.length < TOKEN_ACCOUNT_SIZE) return null;
  const token = getTokenDecoder().decode(account.data.subarray(0, TOKEN_ACCOUNT_SIZE));
  if (token.state === AccountState.Uninitialized) return null;
  return Object.freeze({
    address: account.address,
    mint: token.mint,
    owner: token.owner,
    amount: token.amount,
    delegate: isSome(token.delegate) ? token.delegate.value : null,
    delegatedAmount: token.delegatedAmount,
    frozen: token.state === AccountState.Frozen,
  });
}
