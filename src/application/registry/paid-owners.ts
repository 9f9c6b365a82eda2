import type { Address } from "@solana/kit";
import type { AgentIndex } from "../ports/agent-index.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { type PaidOwner, rankPaidOwners } from "../../domain/registry/payments-order.ts";

/** The paid part of `sort=payments`: payees that own at least one agent, ranked, and the same as a set. */
export type PaidOwners = Readonly<{ ranking: readonly PaidOwner[]; owners: ReadonlySet<string> }>;

type OwnerIndex = Pick<AgentIndex, "agentsOwnedBy">;

/** Payees looked up between two yields to the event loop while the paid owners are built. */
const OWNERS_PER_SLICE = 256;

const built = new WeakMap<ReadonlyMap<string, number>, WeakMap<OwnerIndex, Promise<PaidOwners>>>();

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The payees of `counts` that own an agent, ranked. Most payees of a facilitator are not agent
 * owners, and a page that looked each one up would cost what the payees number (measured ~50 ms of
 * CPU per first page with 100,000 payees owning no agent), so the restriction is built once per
 * counts refresh (one object per refresh, every 30 s), in slices that let other requests run, and
 * shared by every page until the next refresh. An agent registered since by a payee that owned none
 * is listed in the unpaid part until then (counts are that stale anyway).
 */
export function paidOwnersOf(index: OwnerIndex, counts: ReadonlyMap<string, number>): Promise<PaidOwners> {
  let byIndex = built.get(counts);
  if (!byIndex) {
    byIndex = new WeakMap();
    built.set(counts, byIndex);
  }
  let paid = byIndex.get(index);
  if (!paid) {
    paid = build(index, counts);
    const memo = byIndex;
    // A failed build (index unavailable) is not kept: the next page tries again.
    paid.catch(() => memo.delete(index));
    memo.set(index, paid);
  }
  return paid;
}

async function build(index: OwnerIndex, counts: ReadonlyMap<string, number>): Promise<PaidOwners> {
  const owning: PaidOwner[] = [];
  let looked = 0;
  for (const [owner, count] of counts) {
    if (count <= 0) continue;
    if ((await index.agentsOwnedBy(owner as Address)).length > 0) owning.push({ owner, count });
    if (++looked % OWNERS_PER_SLICE === 0) await yieldToEventLoop();
  }
  const ranking = rankPaidOwners(owning);
  return Object.freeze({ ranking, owners: new Set(ranking.map((paid) => paid.owner)) });
}

/** Owners whose agents are many enough that sorting them again for every page would be costly. */
const SORTED_CACHE_FROM = 64;
const MAX_SORTED_OWNERS = 64;
const sortedByOwner = new Map<string, Readonly<{ sorted: readonly AgentRecord[]; members: ReadonlySet<AgentRecord> }>>();

/** Sorted by nftMint, each key read once (a record's identity may be decoded on every read). */
function sortedByMint(agents: readonly AgentRecord[]): readonly AgentRecord[] {
  const keyed = agents.map((agent) => ({ mint: agent.identity.nftMint, agent }));
  keyed.sort((a, b) => (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0));
  return Object.freeze(keyed.map(({ agent }) => agent));
}

/**
 * An owner's agents by nftMint. A large owner walked page by page would be sorted again for every
 * page; its sorted list is kept and reused while the index returns the same records (checked by
 * identity: an updated agent is a new record object, so any change sorts again).
 */
export function agentsByMint(owner: string, agents: readonly AgentRecord[]): readonly AgentRecord[] {
  if (agents.length < SORTED_CACHE_FROM) return sortedByMint(agents);
  const kept = sortedByOwner.get(owner);
  if (kept && kept.sorted.length === agents.length && agents.every((agent) => kept.members.has(agent))) return kept.sorted;
  const sorted = sortedByMint(agents);
  if (sortedByOwner.size >= MAX_SORTED_OWNERS) sortedByOwner.delete(sortedByOwner.keys().next().value as string);
  sortedByOwner.set(owner, { sorted, members: new Set(agents) });
  return sorted;
}

/** Index of the first of `sorted` (by nftMint) whose nftMint is after `nftMint`. */
export function firstMintAfter(sorted: readonly AgentRecord[], nftMint: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as AgentRecord).identity.nftMint <= nftMint) low = mid + 1;
    else high = mid;
  }
  return low;
}
