import { queryWords, type CatalogueEntry } from "../../domain/discovery/catalogue-entry.ts";
import type { CatalogueFilter, DiscoveryStore } from "../ports/discovery-store.ts";
import type { JoinedAgent, Payees, RegistryJoin } from "./registry-join.ts";

/** The list's and the search's filters: the Bazaar client's, plus the registry's `category` and `agent`. */
export type CatalogueQuery = Omit<CatalogueFilter, "payees" | "words"> & Readonly<{ category?: string; agent?: string }>;

export type CatalogueItem = Readonly<{ entry: CatalogueEntry; agent: JoinedAgent | null }>;

export type DiscoveryCatalogue = Readonly<{
  list(query: CatalogueQuery, page: Readonly<{ limit: number; offset: number }>): Promise<Readonly<{ items: readonly CatalogueItem[]; total: number }>>;
  search(query: CatalogueQuery & Readonly<{ text: string }>, page: Readonly<{ limit: number; offset: number }>): Promise<Readonly<{ items: readonly CatalogueItem[]; total: number }>>;
}>;

const NOBODY: Payees = Object.freeze({ payTos: [], resources: [] });

/** The catalogue as GET /discovery/resources and /discovery/search read it, joined to the registry. */
export function createDiscoveryCatalogue(deps: Readonly<{ store: DiscoveryStore; join: RegistryJoin }>): DiscoveryCatalogue {
  const { store, join } = deps;

  /** Both registry filters narrow to the payees they share. */
  async function payeesOf(query: CatalogueQuery): Promise<Payees | undefined> {
    const sets: Payees[] = [];
    if (query.agent !== undefined) sets.push((await join.payeesOfAgent(query.agent)) ?? NOBODY);
    if (query.category !== undefined) sets.push(await join.payeesOfCategory(query.category));
    if (sets.length === 0) return undefined;
    return sets.reduce((a, b) => ({ payTos: a.payTos.filter((p) => b.payTos.includes(p)), resources: a.resources.filter((r) => b.resources.includes(r)) }));
  }

  async function page(filter: CatalogueFilter, range: Readonly<{ limit: number; offset: number }>) {
    const { items, total } = await store.list(filter, range);
    // The join only annotates: an index not loaded yet leaves `agent` null rather than failing the list.
    const joined = await Promise.all(items.map(async (entry) => ({ entry, agent: await join.agentOf(entry).catch(() => null) })));
    return { items: joined, total };
  }

  function filterOf(query: CatalogueQuery, payees: Payees | undefined): CatalogueFilter {
    const { category: _category, agent: _agent, ...plain } = query;
    return { ...plain, ...(payees ? { payees } : {}) };
  }

  return Object.freeze({
    list: async (query, range) => page(filterOf(query, await payeesOf(query)), range),
    search: async (query, range) => {
      const { text, ...rest } = query;
      return page({ ...filterOf(rest, await payeesOf(rest)), words: queryWords(text) }, range);
    },
  });
}
