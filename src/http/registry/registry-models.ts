import { t } from "elysia";

/**
 * Wire models of the registry read API. Query models only check shape (strings, lengths);
 * meaning (ranges, addresses, cursors) is checked in query-parsing.ts so every problem gets
 * one clear 400 message.
 */
const optionalString = (maxLength: number, description: string) => t.Optional(t.String({ maxLength, description }));
const optionalBoolean = (description: string) => t.Optional(t.String({ description: `${description} (\`true\` or \`false\`)`, maxLength: 5 }));

export const AgentListQuery = t.Object({
  cursor: optionalString(200, "opaque cursor from the previous page's cursor.next"),
  limit: optionalString(10, "page size, integer 1..100 (default 20)"),
  q: optionalString(200, "case-insensitive substring of metadataUri, at least 2 characters"),
  category: optionalString(64, "category name (resolved to its SHA-256 tag hash) or the 64-char hex hash"),
  active: optionalBoolean("only active or only inactive agents"),
  owner: optionalString(64, "owner wallet address (base58)"),
});
export type AgentListQuery = typeof AgentListQuery.static;

export const AgentIdParams = t.Object({ id: t.String({ maxLength: 100, description: "agent nftMint (base58)" }) });
export type AgentIdParams = typeof AgentIdParams.static;

export const FeedbackQuery = t.Object({
  reviewer: optionalString(64, "reviewer wallet address (base58)"),
  verified: optionalBoolean("only feedback with (true) or without (false) payment proof"),
  includeRevoked: optionalBoolean("include revoked entries (default false)"),
});
export type FeedbackQuery = typeof FeedbackQuery.static;

export const ServicesQuery = t.Object({
  serviceType: optionalString(10, "mcp, a2a, api or web"),
  active: optionalBoolean("only active or only inactive services"),
});
export type ServicesQuery = typeof ServicesQuery.static;

/** On-chain Unix seconds rendered as ISO-8601 UTC, e.g. `2023-11-14T22:13:20.000Z`. */
const IsoTime = t.String({ description: "ISO-8601 UTC time (from on-chain Unix seconds)" });

export const ReputationView = t.Object({
  verifiedCount: t.Number(),
  verifiedAvgScore: t.Number(),
  unverifiedCount: t.Number(),
  unverifiedAvgScore: t.Number(),
  validationCount: t.Number(),
});

export const AgentView = t.Object({
  nftMint: t.String(),
  owner: t.String(),
  metadataUri: t.String(),
  categories: t.Array(t.String(), { description: "category names where known, else the tag hash in hex" }),
  active: t.Boolean(),
  reputation: ReputationView,
});
export type AgentView = typeof AgentView.static;

export const AgentListView = t.Object({
  data: t.Array(AgentView),
  cursor: t.Object({ next: t.Union([t.String(), t.Null()]), hasMore: t.Boolean() }),
});
export type AgentListView = typeof AgentListView.static;

export const CategoryView = t.Object({ name: t.String(), hash: t.String() });
export type CategoryView = typeof CategoryView.static;

export const ServiceView = t.Object({
  address: t.String(),
  serviceType: t.Union([t.Literal("mcp"), t.Literal("a2a"), t.Literal("api"), t.Literal("web")]),
  endpoint: t.String(),
  version: t.String(),
  active: t.Boolean(),
});
export type ServiceView = typeof ServiceView.static;

export const AgentDetailView = t.Composite([
  AgentView,
  t.Object({
    address: t.String({ description: "agent PDA" }),
    ownerVersion: t.Number(),
    feedbackAuthority: t.String(),
    metadataHash: t.String({ description: "hex" }),
    tags: t.Array(t.String()),
    delegationCount: t.Number(),
    createdAt: IsoTime,
    updatedAt: IsoTime,
    services: t.Array(ServiceView),
  }),
]);
export type AgentDetailView = typeof AgentDetailView.static;

/** Field for field the x84 SDK's `FeedbackEntry` (`src/api/types.ts`), plus `revoked`. */
export const FeedbackView = t.Object({
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
});
export type FeedbackView = typeof FeedbackView.static;
