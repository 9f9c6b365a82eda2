import type { AgentIndex } from "./ports/agent-index.ts";
import type { PayToPolicy } from "./ports/pay-to-policy.ts";

/** PAYTO_POLICY=allowlist: only addresses from the operator's file. */
export function allowlistPolicy(addresses: Iterable<string>): PayToPolicy {
  const allowed: ReadonlySet<string> = new Set(addresses);
  return Object.freeze({ name: "allowlist", allows: async (payTo: string) => allowed.has(payTo) });
}

/**
 * PAYTO_POLICY=registered-agents: payTo must own an active agent in this service's registry index
 * (the x84 model: a payee is an agent NFT holder). Answered from the cached read model, so a
 * hostile request never costs a ledger scan; an agent registered seconds ago is accepted once the
 * index refreshes (REGISTRY_CACHE_TTL_SECONDS).
 */
export function registeredAgentsPolicy(index: AgentIndex): PayToPolicy {
  return Object.freeze({
    name: "registered-agents",
    async allows(payTo: string) {
      const page = await index.listAgents({ owner: payTo, active: true, limit: 1 });
      return page.items.length > 0;
    },
  });
}
