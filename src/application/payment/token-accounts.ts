import { isSome, type Address } from "@solana/kit";
import { AccountState, getTokenDecoder, getTokenSize, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022";
import type { TokenAccountView } from "../../domain/modes/token-delegate-check.ts";
import type { AccountSnapshot, Ledger } from "../ports/ledger.ts";

const TOKEN_ACCOUNT_SIZE = getTokenSize();
/** Token-2022's AccountType byte after the base state: 2 for a token account. */
const ACCOUNT_TYPE_ACCOUNT = 2;
/** Built once: getTokenDecoder() composes a dozen codecs, which cost as much as a decode. */
const tokenDecoder = getTokenDecoder();

/** Token account views by snapshot: `of` decodes each snapshot object once. */
export type TokenAccountViews = Readonly<{ of(account: AccountSnapshot | null): TokenAccountView | null }>;

/**
 * A batched read (batched-account-reads.ts) hands every settlement of a run the same frozen
 * snapshot of a shared account (a payer's source, a payee's account), so with one of these, owned
 * by the composition root, each is decoded once per run, not once per settlement. Weak: a
 * snapshot's view goes with it.
 */
export function createTokenAccountViews(): TokenAccountViews {
  const views = new WeakMap<AccountSnapshot, TokenAccountView | null>();
  return {
    of(account) {
      if (account === null) return null;
      const cached = views.get(account);
      if (cached !== undefined) return cached;
      const view = toTokenAccountView(account);
      views.set(account, view);
      return view;
    },
  };
}

/**
 * The token account at `address` as the delegated checks see it, or null when it is
 * missing, not owned by SPL Token or Token-2022, or not an initialized token account.
 */
export async function readTokenAccount(ledger: Ledger, address: Address): Promise<TokenAccountView | null> {
  return toTokenAccountView(await ledger.getAccount(address));
}

/** One snapshot decoded, without a cache. */
export function toTokenAccountView(account: AccountSnapshot | null): TokenAccountView | null {
  if (account === null) return null;
  // SECURITY: bytes shaped like a token account mean nothing unless a token program owns them.
  // Token-2022 accounts share SPL Token's 165-byte base; their extensions follow it.
  if (account.owner !== TOKEN_PROGRAM_ADDRESS && account.owner !== TOKEN_2022_PROGRAM_ADDRESS) return null;
  if (account.data.length < TOKEN_ACCOUNT_SIZE) return null;
  // A Token-2022 mint with extensions is as long as an account: its account-type byte tells them apart.
  if (account.data.length > TOKEN_ACCOUNT_SIZE && account.data[TOKEN_ACCOUNT_SIZE] !== ACCOUNT_TYPE_ACCOUNT) return null;
  const token = tokenDecoder.decode(account.data.subarray(0, TOKEN_ACCOUNT_SIZE));
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
