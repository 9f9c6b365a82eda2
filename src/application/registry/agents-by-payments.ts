import type { Address } from "@solana/kit";
import type { AgentIndex } from "../ports/agent-index.ts";
import { agentMatches, type AgentFilter } from "../../domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { FIRST_MINT, firstOwnerFrom, type PaymentsCursor } from "../../domain/registry/payments-order.ts";
import { MAX_AGENTS_SCANNED, pageOfAgentsWhere } from "./agent-payments.ts";
import { agentsByMint, firstMintAfter, paidOwnersOf } from "./paid-owners.ts";

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
 * One page of `sort=payments` (payments-order.ts): the paid part walks the payees that own an agent
 * (paid-owners.ts: ranked once per counts refresh) and each owner's agents by nftMint, checking the
 * filters on each; the unpaid part, unless `minPayments` excludes it, is the default order without
 * the paid owners' agents. Either part stops after MAX_AGENTS_SCANNED steps (an owner visited or an
 * agent checked) with a cursor to go on, so a page costs at most that whatever the filters.
 */
export async function pageOfAgentsByPayments(
  index: Pick<AgentIndex, "listAgents" | "agentsOwnedBy">,
  counts: ReadonlyMap<string, number>,
  request: PaymentsPageRequest,
): Promise<PaymentsPage> {
  const { limit, cursor, minPayments, ...filter } = request;
  const items: AgentRecord[] = [];
  const paid = await paidOwnersOf(index, counts);
  if (cursor === undefined || cursor.part === "paid") {
    const { ranking } = paid;
    const key = cursor?.key;
    let scanned = 0;
    for (let i = key ? firstOwnerFrom(ranking, key) : 0; i < ranking.length; i++) {
      const { owner, count } = ranking[i] as (typeof ranking)[number];
      if (count < minPayments) return { items, next: null };
      if (filter.owner !== undefined && owner !== filter.owner) continue;
      // An owner visited costs a step even without agents: the budget bounds the lookups too.
      if (scanned >= MAX_AGENTS_SCANNED) return { items, next: { part: "paid", key: { count, owner, nftMint: FIRST_MINT } } };
      scanned += 1;
      const agents = agentsByMint(owner, await index.agentsOwnedBy(owner as Address));
      const resumesHere = key !== undefined && key.owner === owner && key.count === count;
      for (let a = resumesHere ? firstMintAfter(agents, key.nftMint) : 0; a < agents.length; a++) {
        const agent = agents[a] as AgentRecord;
        scanned += 1;
        const at: PaymentsCursor = { part: "paid", key: { count, owner, nftMint: agent.identity.nftMint } };
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
  // The unpaid part, in the default order; the paid owners' agents were listed above.
  const after = cursor?.part === "unpaid" ? cursor.after : undefined;
  const rest = await pageOfAgentsWhere(index, { ...filter, limit: limit - items.length, ...(after ? { after } : {}) }, (agent) => !paid.owners.has(agent.identity.owner));
  return { items: [...items, ...rest.items], next: rest.nextKey ? { part: "unpaid", after: rest.nextKey } : null };
}
