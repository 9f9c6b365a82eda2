import type { Address } from "@solana/kit";

/** One token account's balance as a transaction's `preTokenBalances`/`postTokenBalances` list it. */
export type TokenBalanceEntry = Readonly<{ owner: Address; mint: Address; amount: bigint }>;

/** How one owner's balance of one mint changed in a transaction (post - pre, summed over its token accounts). */
export type TokenBalanceChange = Readonly<{ owner: Address; mint: Address; delta: bigint }>;

/**
 * The per-(owner, mint) change of a transaction, from its pre- and post-transaction token
 * balances. Summing by owner on each side separately handles token accounts created, closed or
 * handed to another owner inside the transaction. Every pair seen is listed, a zero change too.
 */
export function tokenBalanceChanges(pre: readonly TokenBalanceEntry[], post: readonly TokenBalanceEntry[]): readonly TokenBalanceChange[] {
  const deltas = new Map<string, { owner: Address; mint: Address; delta: bigint }>();
  const add = (entry: TokenBalanceEntry, sign: 1n | -1n) => {
    const key = `${entry.owner}:${entry.mint}`;
    const current = deltas.get(key) ?? { owner: entry.owner, mint: entry.mint, delta: 0n };
    current.delta += sign * entry.amount;
    deltas.set(key, current);
  };
  for (const entry of pre) add(entry, -1n);
  for (const entry of post) add(entry, 1n);
  return Object.freeze([...deltas.values()].map((change) => Object.freeze(change)));
}

/** The change of `owner`'s `mint` balance; 0 when the transaction did not touch it. */
export function balanceChangeOf(changes: readonly TokenBalanceChange[], owner: string, mint: string): bigint {
  return changes.find((change) => change.owner === owner && change.mint === mint)?.delta ?? 0n;
}
