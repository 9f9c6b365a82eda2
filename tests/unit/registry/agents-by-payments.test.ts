/**
 * sort=payments over the real catalog (buildAgentCatalog): payees that own no agent (most of a
 * facilitator's) cost one lookup per counts refresh, not one per page, and an owner visited counts
 * toward the page's scan budget, so a page never looks up more owners than that budget.
 */
import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { MAX_AGENTS_SCANNED } from "../../../src/application/registry/agent-payments.ts";
import { pageOfAgentsByPayments } from "../../../src/application/registry/agents-by-payments.ts";
import { type AgentCatalog, buildAgentCatalog } from "../../../src/domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../../src/domain/registry/agent-record.ts";
import { agentIdentity, testAddress } from "../../registry/support/registry-fixtures.ts";

const address = testAddress;

function agent(n: number, owner: Address): AgentRecord {
  return { address: address(9, n), identity: agentIdentity(n, { owner, feedbackAuthority: owner, tags: [], createdAt: 1_700_000_000n }) };
}

/** An index over a catalog that can be swapped, counting owner lookups. */
function countingIndex(initial: AgentCatalog) {
  let catalog = initial;
  const state = { lookups: 0 };
  const index = {
    listAgents: async (request: Parameters<AgentCatalog["page"]>[0]) => catalog.page(request),
    agentsOwnedBy: async (owner: Address) => {
      state.lookups += 1;
      return catalog.ownedBy(owner);
    },
  };
  return { index, state, swap: (next: AgentCatalog) => (catalog = next) };
}

describe("sort=payments cost", () => {
  test("payees owning no agent are looked up once per counts refresh; a page looks up only the owners it lists", async () => {
    const owners = [address(2, 1), address(2, 2), address(2, 3)];
    const { index, state } = countingIndex(buildAgentCatalog(owners.map((owner, n) => agent(n, owner))));
    const counts = new Map<string, number>();
    // 2,000 payees with more payments than any agent owner, none owning an agent.
    for (let p = 0; p < 2_000; p++) counts.set(address(7, p), 100 + (p % 50));
    owners.forEach((owner, n) => counts.set(owner, 3 - n));
    const first = await pageOfAgentsByPayments(index, counts, { limit: 10, minPayments: 0 });
    expect(first.items.map((a) => a.identity.owner)).toEqual(owners);
    state.lookups = 0;
    const again = await pageOfAgentsByPayments(index, counts, { limit: 10, minPayments: 0 });
    expect(again.items).toEqual(first.items);
    expect(state.lookups).toBe(owners.length);
  });

  test("an owner visited counts toward the scan budget: owners whose agents are gone end the page with a cursor past them", async () => {
    const owners = Array.from({ length: MAX_AGENTS_SCANNED + 1_000 }, (_, n) => address(2, n));
    const counts = new Map(owners.map((owner) => [owner as string, 1]));
    const { index, state, swap } = countingIndex(buildAgentCatalog(owners.map((owner, n) => agent(n, owner))));
    await pageOfAgentsByPayments(index, counts, { limit: 1, minPayments: 0 });
    // Every agent is gone but the last owner's (ranked last: ties by owner, ascending).
    const last = owners.toSorted().at(-1) as Address;
    swap(buildAgentCatalog([agent(owners.indexOf(last), last)]));
    state.lookups = 0;
    const first = await pageOfAgentsByPayments(index, counts, { limit: 1, minPayments: 0 });
    expect(first.items).toEqual([]);
    expect(first.next?.part).toBe("paid");
    expect(state.lookups).toBeLessThanOrEqual(MAX_AGENTS_SCANNED);
    const second = await pageOfAgentsByPayments(index, counts, { limit: 1, minPayments: 0, ...(first.next ? { cursor: first.next } : {}) });
    expect(second.items.map((a) => a.identity.owner)).toEqual([last]);
  });
});
