import { Elysia } from "elysia";
import { isAddress } from "@solana/kit";
import { RegistryIndexUnavailableError, type AgentIndex } from "../../application/ports/agent-index.ts";
import { encodeAgentCursor } from "../../domain/registry/agent-cursor.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import { HttpError } from "../http-error.ts";
import { createAgentPresenter } from "./agent-presenter.ts";
import { parseAgentListQuery, parseFeedbackQuery, parseServicesQuery } from "./query-parsing.ts";
import { readCors } from "./read-cors.ts";
import { AgentIdParams, AgentListQuery, FeedbackQuery, ServicesQuery, type AgentListView } from "./registry-models.ts";

export type RegistryRoutesDeps = Readonly<{
  index: AgentIndex;
  categories: CategoryCatalog;
}>;

/**
 * Read side of the registry interface: GET /agents, /agents/categories, /agents/:id,
 * /agents/:id/feedback, /agents/:id/services. Mount after `errorLayer(logger)`.
 */
export function registryRoutes(deps: RegistryRoutesDeps) {
  const { index, categories } = deps;
  const present = createAgentPresenter(categories);
  const categoryList = categories.list.map(({ name, hash }) => ({ name, hash }));

  return new Elysia({ name: "registry-routes" })
    .use(readCors())
    .get(
      "/agents",
      async ({ query }): Promise<AgentListView> => {
        const request = parseAgentListQuery(query, categories);
        const page = await available(index.listAgents(request));
        return {
          data: page.items.map(present.agent),
          cursor: { next: page.nextKey ? encodeAgentCursor(page.nextKey) : null, hasMore: page.nextKey !== null },
        };
      },
      { query: AgentListQuery },
    )
    .get("/agents/categories", () => categoryList)
    .get(
      "/agents/:id",
      async ({ params }) => {
        const nftMint = knownId(params.id);
        const agent = await available(index.getAgent(nftMint));
        const services = agent ? await available(index.listServices(nftMint, {})) : null;
        if (!agent || !services) throw agentNotFound();
        return present.detail(agent, services);
      },
      { params: AgentIdParams },
    )
    .get(
      "/agents/:id/feedback",
      async ({ params, query }) => {
        const nftMint = knownId(params.id);
        const filter = parseFeedbackQuery(query);
        const entries = await available(index.listFeedback(nftMint, filter));
        if (!entries) throw agentNotFound();
        return entries.map(present.feedback);
      },
      { params: AgentIdParams, query: FeedbackQuery },
    )
    .get(
      "/agents/:id/services",
      async ({ params, query }) => {
        const nftMint = knownId(params.id);
        const filter = parseServicesQuery(query);
        const services = await available(index.listServices(nftMint, filter));
        if (!services) throw agentNotFound();
        return services.map(present.service);
      },
      { params: AgentIdParams, query: ServicesQuery },
    );
}

/** A malformed id cannot name an agent: it is a 404 like an unknown one. */
function knownId(id: string): string {
  if (!isAddress(id)) throw agentNotFound();
  return id;
}

function agentNotFound(): HttpError {
  return new HttpError(404, "agent not found");
}

/** Before the first successful load there is nothing to serve: 503, not a generic 500. */
async function available<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof RegistryIndexUnavailableError) throw new HttpError(503, "registry index is not available yet; retry shortly");
    throw error;
  }
}
