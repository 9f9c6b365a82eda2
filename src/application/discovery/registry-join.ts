import type { AgentIndex } from "../ports/agent-index.ts";
import type { Clock } from "../ports/clock.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import type { AgentKey } from "../../domain/registry/agent-order.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import { toHex } from "../../domain/registry/borsh-codecs.ts";
import { type Reputation, reputationOf } from "../../domain/registry/reputation.ts";
import type { CatalogueEntry } from "../../domain/discovery/catalogue-entry.ts";

/** The registry agent behind a catalogue entry. */
export type JoinedAgent = Readonly<{ nftMint: string; categories: readonly string[]; reputation: Reputation }>;

/** Who a registry filter admits: entries paid to these owners or served at these endpoints. */
export type Payees = Readonly<{ payTos: readonly string[]; resources: readonly string[] }>;

export type RegistryJoin = Readonly<{
  /** The entry's agent: one whose registered service is the entry's URL, else the newest agent its payTo owns. */
  agentOf(entry: CatalogueEntry): Promise<JoinedAgent | null>;
  /** The payees of one agent (its owner and its services' endpoints); null when the agent is unknown. */
  payeesOfAgent(nftMint: string): Promise<Payees | null>;
  /** The payees of every agent in a category (at most MAX_AGENTS_PER_FILTER agents). */
  payeesOfCategory(category: string): Promise<Payees>;
}>;

export type RegistryJoinDeps = Readonly<{
  index: Pick<AgentIndex, "agentsOwnedBy" | "getAgent" | "listServices" | "listAgents">;
  categories: CategoryCatalog;
  clock: Clock;
  /** How long the endpoint map and category payees are reused; default 60 s. */
  cacheMs?: number;
}>;

/** A category filter reads at most this many agents (newest first). */
export const MAX_AGENTS_PER_FILTER = 5_000;
/** The endpoint map reads at most this many agents; past it, entries join by payTo only. */
export const MAX_AGENTS_FOR_ENDPOINTS = 50_000;
const PAGE = 100;

/**
 * Joins catalogue entries to the registry from its in-memory index. Nothing here reads the store
 * or the ledger: the endpoint map (endpoint -> agent) and the payees of each category are built
 * from the index at most once per `cacheMs`, off any registry route.
 */
export function createRegistryJoin(deps: RegistryJoinDeps): RegistryJoin {
  const { index, categories, clock } = deps;
  const cacheMs = deps.cacheMs ?? 60_000;
  const tagName = (tag: Uint8Array | ReadonlyArray<number>): string => {
    const hex = toHex(tag as Uint8Array);
    return categories.nameOf(hex) ?? hex;
  };
  // `identity` is read once per record: the index builds it on each read (indexed-agent.ts).
  const joined = ({ identity }: AgentRecord): JoinedAgent => ({
    nftMint: identity.nftMint,
    categories: identity.tags.map((tag) => tagName(tag as Uint8Array)),
    reputation: reputationOf(identity),
  });

  let endpoints: Readonly<{ at: number; map: Promise<ReadonlyMap<string, string>> }> | null = null;
  const categoryPayees = new Map<string, Readonly<{ at: number; payees: Promise<Payees> }>>();

  async function* agentsWhere(filter: Readonly<{ categoryHash?: string }>, max: number): AsyncGenerator<AgentRecord> {
    let after: AgentKey | undefined;
    for (let read = 0; read < max; read += PAGE) {
      const page = await index.listAgents({ ...filter, limit: PAGE, ...(after ? { after } : {}) });
      yield* page.items;
      if (!page.nextKey) return;
      after = page.nextKey;
    }
  }

  async function buildEndpoints(): Promise<ReadonlyMap<string, string>> {
    const map = new Map<string, string>();
    for await (const { identity } of agentsWhere({}, MAX_AGENTS_FOR_ENDPOINTS)) {
      for (const { service } of (await index.listServices(identity.nftMint, { active: true })) ?? []) {
        const endpoint = normalisedEndpoint(service.endpoint);
        if (endpoint && !map.has(endpoint)) map.set(endpoint, identity.nftMint);
      }
    }
    return map;
  }

  function endpointMap(): Promise<ReadonlyMap<string, string>> {
    const now = clock.now();
    if (!endpoints || now - endpoints.at > cacheMs) {
      const map = buildEndpoints();
      endpoints = { at: now, map };
      // A failed build is not kept: the next request tries again.
      map.catch(() => {
        if (endpoints?.map === map) endpoints = null;
      });
    }
    return endpoints.map;
  }

  async function payeesOf(records: AsyncIterable<AgentRecord> | Iterable<AgentRecord>): Promise<Payees> {
    const payTos = new Set<string>();
    const resources = new Set<string>();
    for await (const { identity } of records) {
      payTos.add(identity.owner);
      for (const { service } of (await index.listServices(identity.nftMint, {})) ?? []) {
        const endpoint = normalisedEndpoint(service.endpoint);
        if (endpoint) resources.add(endpoint);
      }
    }
    return { payTos: [...payTos], resources: [...resources] };
  }

  return Object.freeze({
    async agentOf(entry: CatalogueEntry): Promise<JoinedAgent | null> {
      const byEndpoint = (await endpointMap()).get(entry.resource);
      const served = byEndpoint ? await index.getAgent(byEndpoint) : null;
      if (served) return joined(served);
      const owned = await index.agentsOwnedBy(entry.payTo as never);
      const byTime = owned.map((record) => ({ record, updatedAt: record.identity.updatedAt }));
      const newest = byTime.sort((a, b) => Number(b.updatedAt - a.updatedAt))[0];
      return newest ? joined(newest.record) : null;
    },
    async payeesOfAgent(nftMint: string): Promise<Payees | null> {
      const agent = await index.getAgent(nftMint);
      return agent ? payeesOf([agent]) : null;
    },
    payeesOfCategory(category: string): Promise<Payees> {
      const now = clock.now();
      const cached = categoryPayees.get(category);
      if (cached && now - cached.at <= cacheMs) return cached.payees;
      const payees = payeesOf(agentsWhere({ categoryHash: categories.resolve(category) }, MAX_AGENTS_PER_FILTER));
      categoryPayees.set(category, { at: now, payees });
      payees.catch(() => categoryPayees.delete(category));
      return payees;
    },
  });
}

/** An endpoint as catalogue URLs are written (origin and path, no query or fragment); null when not an http(s) URL. */
export function normalisedEndpoint(endpoint: string): string | null {
  if (!URL.canParse(endpoint)) return null;
  const url = new URL(endpoint);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return `${url.origin}${url.pathname}`;
}
