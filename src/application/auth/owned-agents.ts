import type { Address } from "@solana/kit";
import type { AgentIndex } from "../ports/agent-index.ts";

/** nftMints of the agents `owner` owns. */
export type OwnedAgents = (owner: Address) => Promise<readonly string[]>;

export type OwnedAgentsDeps = Readonly<{ index: AgentIndex }>;

/**
 * The agents of a signed-in user, from the registry index's owner list: no ledger read per
 * request. The index follows the program's writes (programSubscribe), so an agent registered a
 * moment ago is listed within about a second; without a live feed, within one
 * REGISTRY_CACHE_TTL_SECONDS.
 *
 * SECURITY: a direct owner-filtered getProgramAccounts per request (as before) let anyone who
 * signs in with fresh keys spend the RPC node's capacity, which /verify and /settle share.
 */
export function createOwnedAgents(deps: OwnedAgentsDeps): OwnedAgents {
  return async (owner) => (await deps.index.agentsOwnedBy(owner)).map((record) => record.identity.nftMint);
}
