import type { AgentIndex } from "../ports/agent-index.ts";
import type { Clock } from "../ports/clock.ts";
import type { AgentPage, AgentPageRequest } from "../../domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import type { PaymentStats, PaymentsSummary, SettledReceipt } from "../ports/payment-stats.ts";

/**
 * Payments settled through this facilitator to agents' owners, for the registry's reads: the
 * detail's `payments` and the list's `minPayments`. Both come from the settlement store, behind
 * caches so a registry read costs at most one store query per owner per `detailCacheMs`, and the
 * list none at all on its path (the per-owner counts are one grouped query per `countsCacheMs`,
 * served stale while the next is read).
 */
export type AgentPayments = Readonly<{
  summaryFor(owner: string): Promise<PaymentsSummary>;
  /** Settled payments per owner (absent: none). */
  countsByOwner(): Promise<ReadonlyMap<string, number>>;
  /**
   * Those of `receipts` that a receipt-mode settlement confirmed here (feedback `settledHere`), with
   * the asset and amount each settled. A receipt found settled stays so (a settled record never
   * leaves that state), so it is remembered for good; one not found is asked again after `detailCacheMs`.
   */
  settledReceipts(receipts: readonly string[]): Promise<ReadonlyMap<string, readonly SettledReceipt[]>>;
}>;

export type AgentPaymentsDeps = Readonly<{
  stats: PaymentStats;
  clock: Clock;
  /** Default 5 s. */
  detailCacheMs?: number;
  /** Default 30 s. */
  countsCacheMs?: number;
}>;

const MAX_CACHED_OWNERS = 1_000;
/** Receipts remembered as settled (oldest forgotten first) and as not settled, each. */
const MAX_CACHED_RECEIPTS = 100_000;

export function createAgentPayments(deps: AgentPaymentsDeps): AgentPayments {
  const { stats, clock } = deps;
  const detailCacheMs = deps.detailCacheMs ?? 5_000;
  const countsCacheMs = deps.countsCacheMs ?? 30_000;
  const summaries = new Map<string, Readonly<{ at: number; summary: Promise<PaymentsSummary> }>>();
  let counts: Readonly<{ at: number; value: Promise<ReadonlyMap<string, number>> }> | null = null;
  let refreshing: Promise<ReadonlyMap<string, number>> | null = null;
  const settledReceipts = new Map<string, readonly SettledReceipt[]>();
  /** Receipts not settled here when last asked, and when. */
  const unsettledAt = new Map<string, number>();

  /** Receipts being asked about now: concurrent misses for the same receipt share one store query. */
  const asking = new Map<string, Promise<unknown>>();

  async function receiptsSettled(receipts: readonly string[]): Promise<ReadonlyMap<string, readonly SettledReceipt[]>> {
    const now = clock.now();
    const unknown = [...new Set(receipts)].filter((r) => !settledReceipts.has(r) && !(now - (unsettledAt.get(r) ?? -Infinity) <= detailCacheMs));
    const toAsk = unknown.filter((r) => !asking.has(r));
    if (toAsk.length > 0) {
      const query = stats.settledReceipts(toAsk).then((found) => {
        const at = clock.now();
        for (const receipt of toAsk) {
          unsettledAt.delete(receipt);
          const settled = found.get(receipt);
          if (settled) {
            if (settledReceipts.size >= MAX_CACHED_RECEIPTS) settledReceipts.delete(settledReceipts.keys().next().value as string);
            settledReceipts.set(receipt, settled);
          } else {
            if (unsettledAt.size >= MAX_CACHED_RECEIPTS) unsettledAt.delete(unsettledAt.keys().next().value as string);
            unsettledAt.set(receipt, at);
          }
        }
      });
      const settled = query.finally(() => {
        for (const receipt of toAsk) if (asking.get(receipt) === settled) asking.delete(receipt);
      });
      for (const receipt of toAsk) asking.set(receipt, settled);
    }
    await Promise.all(unknown.map((r) => asking.get(r)));
    const answer = new Map<string, readonly SettledReceipt[]>();
    for (const receipt of receipts) {
      const settled = settledReceipts.get(receipt);
      if (settled) answer.set(receipt, settled);
    }
    return answer;
  }

  function freshCounts(): Promise<ReadonlyMap<string, number>> {
    refreshing ??= stats.countsByPayTo().then(
      (value) => {
        counts = { at: clock.now(), value: Promise.resolve(value) };
        refreshing = null;
        return value;
      },
      (error: unknown) => {
        refreshing = null;
        throw error;
      },
    );
    return refreshing;
  }

  return Object.freeze({
    summaryFor(owner: string): Promise<PaymentsSummary> {
      const now = clock.now();
      const cached = summaries.get(owner);
      if (cached && now - cached.at <= detailCacheMs) return cached.summary;
      const summary = stats.summaryFor(owner);
      if (summaries.size >= MAX_CACHED_OWNERS) summaries.delete(summaries.keys().next().value as string);
      summaries.set(owner, { at: now, summary });
      // A failed read is not kept: the next request asks again.
      summary.catch(() => summaries.delete(owner));
      return summary;
    },
    settledReceipts: receiptsSettled,
    countsByOwner(): Promise<ReadonlyMap<string, number>> {
      if (!counts) return freshCounts();
      // Stale counts are answered at once; the next ones are read in the background.
      if (clock.now() - counts.at > countsCacheMs) freshCounts().catch(() => {});
      return counts.value;
    },
  });
}

function remember(set: Set<string>, value: string): void {
  if (set.size >= MAX_CACHED_RECEIPTS) set.delete(set.values().next().value as string);
  set.add(value);
}

/** Agents a minPayments page reads at most before answering (with a cursor to go on). */
export const MAX_AGENTS_SCANNED = 5_000;

/**
 * One page of the agent list keeping only agents whose owner has at least `minPayments` settled
 * payments (see pageOfAgentsWhere).
 */
export function pageOfPaidAgents(
  index: Pick<AgentIndex, "listAgents">,
  request: AgentPageRequest,
  counts: ReadonlyMap<string, number>,
  minPayments: number,
): Promise<AgentPage> {
  return pageOfAgentsWhere(index, request, (agent) => (counts.get(agent.identity.owner) ?? 0) >= minPayments);
}

/**
 * One page of the agent list keeping only agents `keep` accepts. Reads the index's own pages in its
 * order and filters them, so the keyset cursor stays valid; after MAX_AGENTS_SCANNED agents it
 * answers what it found, with the cursor of the last agent read (a page may then hold fewer than
 * `limit`, and `nextKey` says more may follow).
 */
export async function pageOfAgentsWhere(index: Pick<AgentIndex, "listAgents">, request: AgentPageRequest, keep: (agent: AgentRecord) => boolean): Promise<AgentPage> {
  const items: AgentRecord[] = [];
  let after = request.after;
  for (let scanned = 0; scanned < MAX_AGENTS_SCANNED; ) {
    const page = await index.listAgents({ ...request, limit: 100, ...(after ? { after } : {}) });
    for (const agent of page.items) {
      scanned += 1;
      const { identity } = agent;
      after = { updatedAt: identity.updatedAt, nftMint: identity.nftMint };
      if (!keep(agent)) continue;
      items.push(agent);
      if (items.length === request.limit) return { items, nextKey: after };
    }
    if (!page.nextKey) return { items, nextKey: null };
  }
  return { items, nextKey: after ?? null };
}
