import { Elysia } from "elysia";
import type { CatalogueItem, CatalogueQuery, DiscoveryCatalogue } from "../../application/discovery/discovery-catalogue.ts";
import { isCoded } from "../../domain/coded-error.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import {
  DEFAULT_DISCOVERY_LIMIT,
  DiscoveryListQuery,
  DiscoveryListView,
  type DiscoveryResourceView,
  DiscoverySearchQuery,
  DiscoverySearchView,
  MAX_DISCOVERY_OFFSET,
} from "./discovery-models.ts";

export type DiscoveryRoutesDeps = Readonly<{ catalogue: DiscoveryCatalogue }>;

/**
 * GET /discovery/resources and GET /discovery/search (x402 Bazaar, docs/discovery.md): the
 * resources declared in payments settled through this facilitator. Open to every caller, like the
 * Bazaar's: the catalogue holds only what resource servers published in their 402 answers.
 */
export function discoveryRoutes(deps: DiscoveryRoutesDeps) {
  const { catalogue } = deps;
  return new Elysia({ name: "discovery-routes" })
    .get(
      "/discovery/resources",
      async ({ query }) => {
        const limit = limitOf(query.limit);
        const offset = offsetOf(query.offset, "offset");
        const page = await available(catalogue.list(filtersOf(query), { limit, offset }));
        return { x402Version: 2 as const, items: page.items.map(toView), pagination: { limit, offset, total: page.total } };
      },
      {
        query: DiscoveryListQuery,
        response: { 200: DiscoveryListView, ...errorResponses([400, 500, 503]) },
        detail: {
          operationId: "listDiscoveryResources",
          tags: ["discovery"],
          summary: "x402 Bazaar: paid resources declared in settlements through this facilitator",
          description:
            "Only resources with at least one settlement here are listed; an entry expires DISCOVERY_TTL_SECONDS after the last payment that refreshed it. Most recently refreshed first. `agent` joins the registry: the agent whose registered service is the URL, else the newest agent owned by payTo.",
        },
      },
    )
    .get(
      "/discovery/search",
      async ({ query }) => {
        if (query.query === undefined) throw new HttpError(400, "query is required");
        const limit = limitOf(query.limit);
        const offset = offsetOf(query.cursor, "cursor");
        const page = await available(catalogue.search({ ...filtersOf(query), text: query.query }, { limit, offset }));
        const next = offset + page.items.length < page.total ? String(offset + page.items.length) : null;
        return { x402Version: 2 as const, resources: page.items.map(toView), partialResults: next !== null, pagination: { limit, cursor: next } };
      },
      {
        query: DiscoverySearchQuery,
        response: { 200: DiscoverySearchView, ...errorResponses([400, 500, 503]) },
        detail: {
          operationId: "searchDiscoveryResources",
          tags: ["discovery"],
          summary: "x402 Bazaar search: resources whose text holds every word of `query`",
          description: "The same catalogue and filters as /discovery/resources; pages through `pagination.cursor`.",
        },
      },
    );
}

function filtersOf(query: DiscoveryListQuery | DiscoverySearchQuery): CatalogueQuery {
  const { type, payTo, scheme, network, extensions, category, agent } = query;
  return {
    ...(type !== undefined ? { type } : {}),
    ...(payTo !== undefined ? { payTo } : {}),
    ...(scheme !== undefined ? { scheme } : {}),
    ...(network !== undefined ? { network } : {}),
    ...(extensions !== undefined ? { extensions } : {}),
    ...(category !== undefined ? { category } : {}),
    ...(agent !== undefined ? { agent } : {}),
  };
}

function limitOf(raw: string | undefined): number {
  return raw === undefined ? DEFAULT_DISCOVERY_LIMIT : Number(raw);
}

function offsetOf(raw: string | undefined, name: string): number {
  const offset = raw === undefined ? 0 : Number(raw);
  if (offset > MAX_DISCOVERY_OFFSET) throw new HttpError(400, `${name} must be at most ${MAX_DISCOVERY_OFFSET}`);
  return offset;
}

function toView({ entry, agent }: CatalogueItem): DiscoveryResourceView {
  return {
    resource: entry.resource,
    type: entry.type,
    x402Version: entry.x402Version,
    accepts: entry.accepts.map((accept) => ({ ...accept, ...(accept.extra ? { extra: { ...accept.extra } } : {}) })),
    lastUpdated: entry.updatedAt,
    ...(entry.description !== undefined ? { description: entry.description } : {}),
    ...(entry.mimeType !== undefined ? { mimeType: entry.mimeType } : {}),
    ...(entry.serviceName !== undefined ? { serviceName: entry.serviceName } : {}),
    ...(entry.tags !== undefined ? { tags: [...entry.tags] } : {}),
    ...(entry.iconUrl !== undefined ? { iconUrl: entry.iconUrl } : {}),
    extensions: { ...entry.extensions },
    lastSettledAt: entry.lastSettledAt,
    agent: agent ? { nftMint: agent.nftMint, categories: [...agent.categories], reputation: { ...agent.reputation } } : null,
  };
}

/** Registry filters need the registry's index (before its first load, 503 like the registry's own reads), and the list needs the store. */
async function available<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (isCoded(error, "REGISTRY_INDEX_UNAVAILABLE")) throw new HttpError(503, "registry index is not available yet; retry shortly");
    // SECURITY: the store's error names its target; the answer does not.
    if (isCoded(error, "STORE_UNAVAILABLE")) throw new HttpError(503, "the discovery catalogue is unavailable; retry shortly");
    throw error;
  }
}
