import { isBase58Address } from "../../domain/registry/fast-address-codec.ts";
import type { AgentPageRequest } from "../../domain/registry/agent-catalog.ts";
import { decodeAgentCursor } from "../../domain/registry/agent-cursor.ts";
import { decodePaymentsCursor, type PaymentsCursor } from "../../domain/registry/payments-order.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import type { FeedbackFilter } from "../../domain/registry/feedback-selection.ts";
import type { ServiceFilter } from "../../domain/registry/service-selection.ts";
import { HttpError } from "../http-error.ts";
import { type AgentListQuery, DEFAULT_PAGE_SIZE, type FeedbackQuery, type ServicesQuery } from "./registry-models.ts";

type Problems = string[];

/**
 * Query parameters that passed their schemas (registry-models.ts) become read-model requests. What
 * a schema cannot say is checked here, every problem listed in one 400: a cursor this API issued,
 * an address whose base58 decodes to 32 bytes.
 */
export function parseAgentListQuery(query: AgentListQuery, categories: CategoryCatalog): AgentPageRequest {
  const problems: Problems = [];
  const request: {
    -readonly [K in keyof AgentPageRequest]: AgentPageRequest[K];
  } = { limit: query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit) };
  // A sort=payments cursor is read by parsePaymentsCursor.
  if (query.cursor !== undefined && query.sort !== "payments") {
    const after = decodeAgentCursor(query.cursor);
    if (after) request.after = after;
    else problems.push(decodePaymentsCursor(query.cursor) ? "cursor was issued for sort=payments; send that sort with it" : "cursor is not a cursor issued by this API");
  }
  if (query.q !== undefined) request.q = query.q;
  if (query.category !== undefined) request.categoryHash = categories.resolve(query.category);
  if (query.active !== undefined) request.active = query.active === "true";
  const owner = parseAddress("owner", query.owner, problems);
  if (owner !== undefined) request.owner = owner;
  throwIfAny(problems);
  return request;
}

/** The position a sort=payments page starts from (undefined: the first page). */
export function parsePaymentsCursor(query: AgentListQuery): PaymentsCursor | undefined {
  if (query.cursor === undefined) return undefined;
  const cursor = decodePaymentsCursor(query.cursor);
  if (cursor) return cursor;
  throw new HttpError(400, [decodeAgentCursor(query.cursor) ? "cursor was issued for the default order, not sort=payments" : "cursor is not a cursor issued by this API"]);
}

export function parseFeedbackQuery(query: FeedbackQuery): FeedbackFilter {
  const problems: Problems = [];
  const filter: { -readonly [K in keyof FeedbackFilter]: FeedbackFilter[K] } = {};
  const reviewer = parseAddress("reviewer", query.reviewer, problems);
  if (reviewer !== undefined) filter.reviewer = reviewer;
  if (query.verified !== undefined) filter.verified = query.verified === "true";
  if (query.includeRevoked !== undefined) filter.includeRevoked = query.includeRevoked === "true";
  throwIfAny(problems);
  return filter;
}

export function parseServicesQuery(query: ServicesQuery): ServiceFilter {
  const filter: { -readonly [K in keyof ServiceFilter]: ServiceFilter[K] } = {};
  if (query.serviceType !== undefined) filter.serviceType = query.serviceType;
  if (query.active !== undefined) filter.active = query.active === "true";
  return filter;
}

function parseAddress(name: string, text: string | undefined, problems: Problems): string | undefined {
  if (text === undefined) return undefined;
  if (isBase58Address(text)) return text;
  problems.push(`${name} must be a base58 address`);
  return undefined;
}

function throwIfAny(problems: Problems): void {
  if (problems.length > 0) throw new HttpError(400, problems);
}
