import { t } from "elysia";
import { enumSchema } from "../enum-schema.ts";
import { ERROR_PHRASE } from "../validation-messages.ts";
import {
  EXAMPLE_AGENT,
  EXAMPLE_AGENT_DETAIL,
  EXAMPLE_CATEGORIES,
  EXAMPLE_CURSOR,
  EXAMPLE_FEEDBACK,
  EXAMPLE_MINT,
  EXAMPLE_OWNER,
  EXAMPLE_SERVICES,
} from "./examples.ts";

/**
 * Wire models of the registry read API (design.md §5), the single source of its validation, its
 * response checks and its OpenAPI document. Query parameters are strings; their schemas state
 * everything JSON Schema can (ranges, enums, lengths, the base58 alphabet). What it cannot (a
 * cursor issued by this API, an address that decodes to 32 bytes) is checked in query-parsing.ts.
 * Unknown query parameters are ignored.
 */
export const BASE58_ADDRESS_PATTERN = "^[1-9A-HJ-NP-Za-km-z]{32,44}$";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const MIN_SEARCH_LENGTH = 2;

const address = (description: string, example: string) =>
  t.String({ pattern: BASE58_ADDRESS_PATTERN, [ERROR_PHRASE]: "must be a base58 address", description, examples: [example] });
const booleanText = (description: string) =>
  enumSchema(["true", "false"], { [ERROR_PHRASE]: "must be true or false", description });

/** 1..MAX_PAGE_SIZE written with at most three digits ("007" is 7), as the parser has always read it. */
const LIMIT_PATTERN = `^(?:0{0,2}[1-9]|0?[1-9][0-9]|${MAX_PAGE_SIZE})$`;

const QUERY = { additionalProperties: true } as const;

export const AgentListQuery = t.Object(
  {
    cursor: t.Optional(t.String({ maxLength: 200, description: "opaque cursor from the previous page's `cursor.next`", examples: [EXAMPLE_CURSOR] })),
    limit: t.Optional(
      t.String({ pattern: LIMIT_PATTERN, [ERROR_PHRASE]: `must be an integer from 1 to ${MAX_PAGE_SIZE}`, description: `page size, 1..${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`, examples: ["20"] }),
    ),
    q: t.Optional(
      t.String({
        minLength: MIN_SEARCH_LENGTH,
        maxLength: 200,
        [ERROR_PHRASE]: `must be ${MIN_SEARCH_LENGTH} to 200 characters`,
        description: "case-insensitive substring of metadataUri",
        examples: ["weather-oracle.example.com"],
      }),
    ),
    category: t.Optional(
      t.String({ pattern: "\\S", maxLength: 64, [ERROR_PHRASE]: "must not be empty", description: "category name (see /agents/categories) or its 64-character hex tag hash", examples: ["data"] }),
    ),
    active: t.Optional(booleanText("only active (`true`) or only inactive (`false`) agents")),
    owner: t.Optional(address("owner wallet", EXAMPLE_OWNER)),
    minPayments: t.Optional(
      t.String({
        pattern: "^[0-9]{1,9}$",
        [ERROR_PHRASE]: "must be a whole number",
        description: "only agents whose owner received at least this many payments settled through this facilitator (counts refreshed every 30 s)",
        examples: ["1"],
      }),
    ),
    sort: t.Optional(
      enumSchema(["updated", "payments"], {
        description:
          "`updated` (default): updatedAt then nftMint, descending. `payments`: agents whose owner received payments settled through this facilitator first, most first (ties by owner, then nftMint, ascending), then every other agent in the default order; with `minPayments` only the former. A cursor belongs to the order that issued it.",
      }),
    ),
  },
  QUERY,
);
export type AgentListQuery = typeof AgentListQuery.static;

export const AgentIdParams = t.Object(
  { id: t.String({ maxLength: 100, description: "the agent's nftMint (base58); anything else is 404", examples: [EXAMPLE_MINT] }) },
  { additionalProperties: false },
);
export type AgentIdParams = typeof AgentIdParams.static;

export const FeedbackQuery = t.Object(
  {
    reviewer: t.Optional(address("only this reviewer's feedback", "3eUKDmbq7GiYNzK7sh5NuyLrKCgWZ4Wcxv3YoTjpKK1W")),
    verified: t.Optional(booleanText("only feedback with (`true`) or without (`false`) payment proof")),
    includeRevoked: t.Optional(booleanText("include revoked entries (default `false`)")),
  },
  QUERY,
);
export type FeedbackQuery = typeof FeedbackQuery.static;

export const ServiceTypeModel = enumSchema(["mcp", "a2a", "api", "web"], { [ERROR_PHRASE]: "must be one of mcp, a2a, api, web" });

export const ServicesQuery = t.Object(
  {
    serviceType: t.Optional(ServiceTypeModel),
    active: t.Optional(booleanText("only active or only inactive services")),
  },
  QUERY,
);
export type ServicesQuery = typeof ServicesQuery.static;

/** On-chain Unix seconds rendered as ISO-8601 UTC, e.g. `2023-11-14T22:13:20.000Z`. */
const IsoTime = t.String({ description: "ISO-8601 UTC time (from on-chain Unix seconds)", examples: ["2026-11-20T12:00:00.000Z"] });
const CLOSED = { additionalProperties: false } as const;

export const ReputationView = t.Object(
  {
    verifiedCount: t.Number({ description: "feedback with payment proof" }),
    verifiedAvgScore: t.Number({ description: "their average score (0 when none)" }),
    unverifiedCount: t.Number(),
    unverifiedAvgScore: t.Number(),
    validationCount: t.Number(),
  },
  { ...CLOSED, title: "Reputation" },
);

const agentFields = {
  nftMint: t.String({ description: "the agent token's mint (base58): the agent's id" }),
  owner: t.String({ description: "owner wallet (base58)" }),
  metadataUri: t.String(),
  categories: t.Array(t.String(), { description: "category names where known, else the tag hash in hex" }),
  active: t.Boolean(),
  reputation: ReputationView,
};

export const AgentView = t.Object(agentFields, { ...CLOSED, title: "Agent", examples: [EXAMPLE_AGENT] });
export type AgentView = typeof AgentView.static;

export const AgentListView = t.Object(
  {
    data: t.Array(AgentView),
    cursor: t.Object(
      { next: t.Union([t.String(), t.Null()], { description: "the next page's cursor; null on the last page" }), hasMore: t.Boolean() },
      { ...CLOSED, title: "Cursor" },
    ),
  },
  { ...CLOSED, title: "AgentList", examples: [{ data: [EXAMPLE_AGENT], cursor: { next: EXAMPLE_CURSOR, hasMore: true } }] },
);
export type AgentListView = typeof AgentListView.static;

export const CategoryView = t.Object(
  { name: t.String({ description: "use it as the `category` filter" }), hash: t.String({ description: "on-chain tag: SHA-256 of the name, lowercase hex" }) },
  { ...CLOSED, title: "Category" },
);
export type CategoryView = typeof CategoryView.static;
export const CategoryListView = t.Array(CategoryView, { examples: [EXAMPLE_CATEGORIES] });

export const ServiceView = t.Object(
  {
    address: t.String({ description: "the service account (PDA)" }),
    serviceType: ServiceTypeModel,
    endpoint: t.String(),
    version: t.String(),
    active: t.Boolean(),
  },
  { ...CLOSED, title: "Service" },
);
export type ServiceView = typeof ServiceView.static;
export const ServiceListView = t.Array(ServiceView, { examples: [EXAMPLE_SERVICES] });

const AssetVolumeView = t.Object(
  { asset: t.String({ description: "token mint" }), amount: t.String({ description: "sum in base units, decimal (exact)" }) },
  { ...CLOSED, title: "AssetVolume" },
);

/** Settlements to the agent's owner through this facilitator: evidence of real payments, not global truth. */
export const PaymentsView = t.Object(
  {
    scope: t.Literal("settled through this facilitator", { description: "other facilitators' settlements are not counted" }),
    count: t.Number(),
    volume: t.Array(AssetVolumeView, { description: "per asset" }),
    distinctPayers: t.Number(),
    last30Days: t.Object({ count: t.Number(), volume: t.Array(AssetVolumeView) }, { ...CLOSED, title: "PaymentsLast30Days" }),
    firstAt: t.Union([t.String(), t.Null()], { description: "ISO 8601; null before the first" }),
    lastAt: t.Union([t.String(), t.Null()]),
  },
  { ...CLOSED, title: "Payments", description: "payments to the agent's owner settled through this facilitator (its settlement store), never from client claims" },
);
export type PaymentsView = typeof PaymentsView.static;

export const AgentDetailView = t.Object(
  {
    ...agentFields,
    address: t.String({ description: "agent PDA" }),
    ownerVersion: t.Number(),
    feedbackAuthority: t.String(),
    metadataHash: t.String({ description: "SHA-256 of the metadata document, hex" }),
    tags: t.Array(t.String(), { description: "category names where known, else hex" }),
    delegationCount: t.Number(),
    createdAt: IsoTime,
    updatedAt: IsoTime,
    services: t.Array(ServiceView),
    payments: t.Optional(PaymentsView),
  },
  { ...CLOSED, title: "AgentDetail", examples: [EXAMPLE_AGENT_DETAIL] },
);
export type AgentDetailView = typeof AgentDetailView.static;

/** Field for field the x84 SDK's `FeedbackEntry` (`src/api/types.ts`), plus `revoked` and `settledHere`. */
export const FeedbackView = t.Object(
  {
    address: t.String(),
    reviewer: t.String(),
    score: t.Number(),
    detailUri: t.String({ description: "detail_uri of the give_feedback that created the entry; \"\" until the background reader has it" }),
    tag1: t.String({ description: "category name where known, else the tag in hex; \"\" for an all-zero tag" }),
    tag2: t.String({ description: "as tag1" }),
    authVerified: t.Boolean(),
    hasPaymentProof: t.Boolean(),
    paymentAmount: t.Number({ description: "u64 base units; exact up to 2^53 - 1, rounded to the nearest double above" }),
    paymentToken: t.String({ description: "token mint; \"\" without payment proof" }),
    revoked: t.Boolean(),
    createdAt: IsoTime,
    settledHere: t.Optional(
      t.Boolean({
        description:
          "not an x84 SDK field: true when the payment receipt this feedback consumed as proof was settled through this facilitator for its paymentToken and paymentAmount; false when its give_feedback was read and named no such receipt; absent until that transaction is read (or while the settlement store does not answer within 250 ms)",
      }),
    ),
  },
  { ...CLOSED, title: "Feedback" },
);
export type FeedbackView = typeof FeedbackView.static;
export const FeedbackListView = t.Array(FeedbackView, { examples: [EXAMPLE_FEEDBACK] });
