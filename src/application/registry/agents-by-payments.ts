import type { Address } from "@solana/kit";
import type { AgentIndex } from "../ports/agent-index.ts";
import { agentMatches, type AgentFilter } from "../../domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { firstOwnerFrom, rankOwnersByPayments, type PaymentsCursor } from "../../domain/registry/payments-order.ts";
import { MAX_AGENTS_SCANNED, pageOfAgentsWhere } from "./agent-payments.ts";

export type PaymentsPageRequest = AgentFilter &
  Readonly<{
    limit: number;
    /** Where the previous page ended; absent for the first page. */
    cursor?: PaymentsCursor;
    /** Only owners with at least this many payments (0: every agent, the unpaid ones after). */
    minPayments: number;
  }>;

export type PaymentsPage = Readonly<{ items: readonly AgentRecord[]; next: PaymentsCursor | null }>;

/**
 * One page of `sort=payments` (payments-order.ts): the paid part walks the owners ranked by their
 * counts (ranked once per counts refresh) and each owner's agents by nftMint, checking the filters
 * on each; the unpaid part, unless `minPayments` excludes it, is the default order without the paid
 * agents. Either part stops after MAX_AGENTS_SCANNED agents with a cursor to go on, so a page costs
 * at most that whatever the filters, and nothing is sorted per request.
 */
export async function pageOfAgentsByPayments(
  index: Pick<AgentIndex, "listAgents" | "agentsOwnedBy">,
  counts: ReadonlyMap<string, number>,
  request: PaymentsPageRequest,
): Promise<PaymentsPage> {
  const { limit, cursor, minPayments, ...filter } = request;
  const items: AgentRecord[] = [];
  if (cursor === undefined || cursor.part === "paid") {
    const ranking = rankOwnersByPayments(counts);
    const key = cursor?.key;
    let scanned = 0;
    for (let i = key ? firstOwnerFrom(ranking, key) : 0; i < ranking.length; i++) {
      const { owner, count } = ranking[i] as (typeof ranking)[number];
      if (count < minPayments) return { items, next: null };
      if (filter.owner !== undefined && owner !== filter.owner) continue;
      const resumesHere = key !== undefined && key.owner === owner && key.count === count;
      const agents = [...(await index.agentsOwnedBy(owner as Address))].sort((a, b) => (a.identity.nftMint < b.identity.nftMint ? -1 : a.identity.nftMint > b.identity.nftMint ? 1 : 0));
      for (const agent of agents) {
        const nftMint = agent.identity.nftMint;
        if (resumesHere && nftMint <= key.nftMint) continue;
        scanned += 1;
        const at: PaymentsCursor = { part: "paid", key: { count, owner, nftMint } };
        if (agentMatches(agent, filter)) {
          items.push(agent);
          if (items.length === limit) return { items, next: at };
        }
        if (scanned >= MAX_AGENTS_SCANNED) return { items, next: at };
      }
    }
  }
  // With minPayments the unpaid part is not listed, whatever the cursor says.
  if (minPayments > 0) return { items, next: null };
  // The unpaid part, in the default order; the paid agents were listed above.
  const after = cursor?.part === "unpaid" ? cursor.after : undefined;
  const rest = await pageOfAgentsWhere(index, { ...filter, limit: limit - items.length, ...(after ? { after } : {}) }, (agent) => (counts.get(agent.identity.owner) ?? 0) === 0);
  return { items: [...items, ...rest.items], next: rest.nextKey ? { part: "unpaid", after: rest.nextKey } : null };
}
