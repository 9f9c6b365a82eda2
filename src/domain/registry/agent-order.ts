/**
 * The one order of the agent list: `updatedAt` descending, then `nftMint` descending (plain
 * string order of the base58 text). The pair is unique per agent, so it is a total order and
 * a keyset cursor made of it never repeats or skips an agent that did not change.
 */
export type AgentKey = Readonly<{ updatedAt: bigint; nftMint: string }>;

/** Negative when `a` lists before `b`, positive when after, 0 when equal. */
export function compareAgentKeys(a: AgentKey, b: AgentKey): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? -1 : 1;
  if (a.nftMint === b.nftMint) return 0;
  return a.nftMint > b.nftMint ? -1 : 1;
}

/** Index of the first element of `sorted` that lists strictly after `key`. */
export function firstIndexAfter<T extends AgentKey>(sorted: readonly T[], key: AgentKey): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const element = sorted[mid] as T;
    if (compareAgentKeys(element, key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}
