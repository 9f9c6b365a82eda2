import { t } from "elysia";
import { enumSchema } from "../enum-schema.ts";
import { ERROR_PHRASE } from "../validation-messages.ts";
import { ReputationView } from "../registry/registry-models.ts";

/**
 * Wire models of GET /discovery/resources and /discovery/search: the response shapes
 * @x402/extensions 2.27.0's `withBazaar` client reads (DiscoveryResourcesResponse,
 * SearchDiscoveryResourcesResponse), plus `agent` and `lastSettledAt` on each resource.
 */
export const DEFAULT_DISCOVERY_LIMIT = 20;
export const MAX_DISCOVERY_LIMIT = 100;
/** Deepest offset served: past it a client narrows its filters instead of paging on. */
export const MAX_DISCOVERY_OFFSET = 10_000;

const CLOSED = { additionalProperties: false } as const;
const QUERY = { additionalProperties: true } as const;
const LIMIT_PATTERN = `^(?:0{0,2}[1-9]|0?[1-9][0-9]|${MAX_DISCOVERY_LIMIT})$`;

const text = (description: string, maxLength: number, example: string) =>
  t.Optional(t.String({ minLength: 1, maxLength, [ERROR_PHRASE]: `must be 1 to ${maxLength} characters`, description, examples: [example] }));

const EXAMPLE_PAY_TO = "5uX8qJt8bX3zq2m9m5fZ4Bq9oWj3xZc8tLkQ1yN2pVxA";
const EXAMPLE_NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const EXAMPLE_RESOURCE = {
  resource: "https://weather-oracle.example.com/v1/forecast",
  type: "http",
  x402Version: 2,
  accepts: [{ scheme: "exact", network: EXAMPLE_NETWORK, asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", amount: "10000", payTo: EXAMPLE_PAY_TO, maxTimeoutSeconds: 60 }],
  lastUpdated: "2026-11-26T10:00:00.000Z",
  description: "Hourly forecast for a city",
  mimeType: "application/json",
  extensions: {
    bazaar: {
      info: { input: { type: "http", method: "GET", queryParams: { city: "Lisbon" } } },
      schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { input: { type: "object" } }, required: ["input"] },
    },
  },
  lastSettledAt: "2026-11-26T10:00:00.000Z",
  agent: {
    nftMint: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
    categories: ["data", "analytics"],
    reputation: { verifiedCount: 4, verifiedAvgScore: 92.25, unverifiedCount: 1, unverifiedAvgScore: 70, validationCount: 0 },
  },
};

const filters = {
  type: t.Optional(enumSchema(["http", "mcp"], { [ERROR_PHRASE]: "must be http or mcp", description: "protocol type of the resource", examples: ["http"] })),
  payTo: text("only resources paid to this address", 64, EXAMPLE_PAY_TO),
  scheme: text("payment scheme", 32, "exact"),
  network: text("CAIP-2 network", 64, EXAMPLE_NETWORK),
  extensions: text("an extension key the resource carries (bazaar)", 64, "bazaar"),
  category: text("registry category name (see /agents/categories on the registry): resources of agents in it", 64, "data"),
  agent: text("registry agent nftMint: resources paid to its owner or served at its registered services", 64, "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"),
  limit: t.Optional(
    t.String({ pattern: LIMIT_PATTERN, [ERROR_PHRASE]: `must be an integer from 1 to ${MAX_DISCOVERY_LIMIT}`, description: `page size, 1..${MAX_DISCOVERY_LIMIT} (default ${DEFAULT_DISCOVERY_LIMIT})`, examples: ["20"] }),
  ),
};

export const DiscoveryListQuery = t.Object(
  {
    ...filters,
    offset: t.Optional(t.String({ pattern: "^[0-9]{1,5}$", [ERROR_PHRASE]: `must be an integer from 0 to ${MAX_DISCOVERY_OFFSET}`, description: "resources to skip (default 0)", examples: ["0"] })),
  },
  QUERY,
);
export type DiscoveryListQuery = typeof DiscoveryListQuery.static;

export const DiscoverySearchQuery = t.Object(
  {
    // Required, but checked by the route: a schema-required parameter fails every other parameter's example checked alone.
    query: t.Optional(t.String({ minLength: 1, maxLength: 256, [ERROR_PHRASE]: "must be 1 to 256 characters", description: "words that must all occur in the resource's URL, method or tool, description, service name or tags", examples: ["weather forecast"] })),
    ...filters,
    cursor: t.Optional(t.String({ pattern: "^[0-9]{1,5}$", [ERROR_PHRASE]: "must be a cursor from a previous search", description: "`pagination.cursor` of the previous page", examples: ["20"] })),
  },
  QUERY,
);
export type DiscoverySearchQuery = typeof DiscoverySearchQuery.static;

const AcceptView = t.Object(
  {
    scheme: t.String(),
    network: t.String(),
    asset: t.String(),
    amount: t.String({ description: "base units, decimal" }),
    payTo: t.String(),
    maxTimeoutSeconds: t.Optional(t.Number()),
    extra: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { ...CLOSED, title: "DiscoveryAccept" },
);

export const DiscoveryAgentView = t.Object(
  {
    nftMint: t.String({ description: "the registry agent behind the resource" }),
    categories: t.Array(t.String()),
    reputation: ReputationView,
  },
  { ...CLOSED, title: "DiscoveryAgent" },
);

export const DiscoveryResourceView = t.Object(
  {
    resource: t.String({ description: "canonical URL (origin and path, or origin and routeTemplate)" }),
    type: t.String({ description: "http or mcp" }),
    x402Version: t.Number(),
    accepts: t.Array(AcceptView, { description: "the requirements payments to this resource were settled under, latest first" }),
    lastUpdated: t.String({ description: "ISO 8601: the last payment that refreshed the entry" }),
    description: t.Optional(t.String()),
    mimeType: t.Optional(t.String()),
    serviceName: t.Optional(t.String()),
    tags: t.Optional(t.Array(t.String())),
    iconUrl: t.Optional(t.String()),
    extensions: t.Optional(t.Record(t.String(), t.Unknown(), { description: "the bazaar declaration (info, schema, routeTemplate) as the resource server sent it" })),
    lastSettledAt: t.String({ description: "ISO 8601: the last settlement through this facilitator that refreshed the entry" }),
    agent: t.Union([DiscoveryAgentView, t.Null()], { description: "the registry agent whose service is this URL or whose owner is payTo; null when none" }),
  },
  { ...CLOSED, title: "DiscoveryResource" },
);
export type DiscoveryResourceView = typeof DiscoveryResourceView.static;

export const DiscoveryListView = t.Object(
  {
    x402Version: t.Literal(2),
    items: t.Array(DiscoveryResourceView),
    pagination: t.Object({ limit: t.Number(), offset: t.Number(), total: t.Number() }, { ...CLOSED, title: "DiscoveryPagination" }),
  },
  { ...CLOSED, title: "DiscoveryResources", examples: [{ x402Version: 2, items: [EXAMPLE_RESOURCE], pagination: { limit: 20, offset: 0, total: 1 } }] },
);

export const DiscoverySearchView = t.Object(
  {
    x402Version: t.Literal(2),
    resources: t.Array(DiscoveryResourceView),
    partialResults: t.Boolean({ description: "true when more matches follow (see pagination.cursor)" }),
    pagination: t.Object({ limit: t.Number(), cursor: t.Union([t.String(), t.Null()]) }, { ...CLOSED, title: "DiscoverySearchPagination" }),
  },
  { ...CLOSED, title: "DiscoverySearchResults", examples: [{ x402Version: 2, resources: [EXAMPLE_RESOURCE], partialResults: false, pagination: { limit: 20, cursor: null } }] },
);
