import type { Address } from "@solana/kit";
import type { AgentKey } from "../../domain/registry/agent-order.ts";
import type { AgentIndex } from "../ports/agent-index.ts";
import type { Clock } from "../ports/clock.ts";
import type { Logger } from "../ports/logger.ts";

/** Direct ledger reads GET /users/me may start per second in one process; the rest use the index. */
export const FRESH_READS_PER_SECOND = 2;
const CACHED_PAGE = 100;

/** nftMints of the agents `owner` owns. */
export type OwnedAgents = (owner: Address) => Promise<readonly string[]>;

export type OwnedAgentsDeps = Readonly<{ index: AgentIndex; clock: Clock; logger: Logger; freshReadsPerSecond?: number }>;

/**
 * The agents of a signed-in user, read from the ledger (`agentsOwnedBy`, so an agent registered a
 * moment ago is listed) while that stays cheap, else from the cached read model (at most one
 * REGISTRY_CACHE_TTL_SECONDS old).
 *
 * SECURITY: each direct read is an owner-filtered getProgramAccounts, costly on any RPC (and the
 * same RPC serves /verify and /settle), and anyone can sign in with a fresh key. So concurrent
 * requests for one owner share one read, and at most `freshReadsPerSecond` reads start per second;
 * past that, and when a direct read fails, the answer comes from the index in memory.
 */
export function createOwnedAgents(deps: OwnedAgentsDeps): OwnedAgents {
  const { index, clock, logger } = deps;
  const perSecond = deps.freshReadsPerSecond ?? FRESH_READS_PER_SECOND;
  const inFlight = new Map<string, Promise<readonly string[]>>();
  let tokens = perSecond;
  let refilledAtMs = clock.now();

  function takeFreshRead(): boolean {
    const nowMs = clock.now();
    tokens = Math.min(perSecond, tokens + (Math.max(0, nowMs - refilledAtMs) * perSecond) / 1000);
    refilledAtMs = nowMs;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }

  async function fromIndex(owner: Address): Promise<readonly string[]> {
    const mints: string[] = [];
    let after: AgentKey | null = null;
    do {
      const page = await index.listAgents({ owner, limit: CACHED_PAGE, ...(after ? { after } : {}) });
      for (const record of page.items) mints.push(record.identity.nftMint);
      after = page.nextKey;
    } while (after !== null);
    return mints;
  }

  async function read(owner: Address): Promise<readonly string[]> {
    if (!takeFreshRead()) return fromIndex(owner);
    try {
      return (await index.agentsOwnedBy(owner)).map((record) => record.identity.nftMint);
    } catch (error) {
      logger.warn("direct read of a user's agents failed; answering from the index", { error: error instanceof Error ? error.message : String(error) });
      return fromIndex(owner);
    }
  }

  return async (owner) => {
    const shared = inFlight.get(owner);
    if (shared) return shared;
    const pending = read(owner).finally(() => inFlight.delete(owner));
    inFlight.set(owner, pending);
    return pending;
  };
}
