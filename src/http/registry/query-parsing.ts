import { isAddress } from "@solana/kit";
import type { AgentPageRequest } from "../../domain/registry/agent-catalog.ts";
import { decodeAgentCursor } from "../../domain/registry/agent-cursor.ts";
import { isServiceType } from "../../domain/registry/agent-service.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import type { FeedbackFilter } from "../../domain/registry/feedback-selection.ts";
import type { ServiceFilter } from "../../domain/registry/service-selection.ts";
import { HttpError } from "../http-error.ts";
import type { AgentListQuery, FeedbackQuery, ServicesQuery } from "./registry-models.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MIN_SEARCH_LENGTH = 2;

type Problems = string[];

/** Validates GET /agents parameters; every problem is listed in one 400. */
export function parseAgentListQuery(query: AgentListQuery, categories: CategoryCatalog): AgentPageRequest {
  const problems: Problems = [];
  const request: {
    -readonly [K in keyof AgentPageRequest]: AgentPageRequest[K];
  } = { limit: parseLimit(query.limit, problems) };
  if (query.cursor !== undefined) {
    const after = decodeAgentCursor(query.cursor);
    if (after) request.after = after;
    else problems.push("cursor: not a cursor issued by this API");
  }
  if (query.q !== undefined) {
    if (query.q.length < MIN_SEARCH_LENGTH) problems.push(`q: must be at least ${MIN_SEARCH_LENGTH} characters`);
    else request.q = query.q;
  }
  if (query.category !== undefined) {
    if (query.category.trim() === "") problems.push("category: must not be empty");
    else request.categoryHash = categories.resolve(query.category);
  }
  const active = parseBoolean("active", query.active, problems);
  if (active !== undefined) request.active = active;
  const owner = parseAddress("owner", query.owner, problems);
  if (owner !== undefined) request.owner = owner;
  throwIfAny(problems);
  return request;
}

export function parseFeedbackQuery(query: FeedbackQuery): FeedbackFilter {
  const problems: Problems = [];
  const filter: { -readonly [K in keyof FeedbackFilter]: FeedbackFilter[K] } = {};
  const reviewer = parseAddress("reviewer", query.reviewer, problems);
  if (reviewer !== undefined) filter.reviewer = reviewer;
  const verified = parseBoolean("verified", query.verified, problems);
  if (verified !== undefined) filter.verified = verified;
  const includeRevoked = parseBoolean("includeRevoked", query.includeRevoked, problems);
  if (includeRevoked !== undefined) filter.includeRevoked = includeRevoked;
  throwIfAny(problems);
  return filter;
}

export function parseServicesQuery(query: ServicesQuery): ServiceFilter {
  const problems: Problems = [];
  const filter: { -readonly [K in keyof ServiceFilter]: ServiceFilter[K] } = {};
  if (query.serviceType !== undefined) {
    if (isServiceType(query.serviceType)) filter.serviceType = query.serviceType;
    else problems.push("serviceType: must be one of mcp, a2a, api, web");
  }
  const active = parseBoolean("active", query.active, problems);
  if (active !== undefined) filter.active = active;
  throwIfAny(problems);
  return filter;
}

function parseLimit(text: string | undefined, problems: Problems): number {
  if (text === undefined) return DEFAULT_PAGE_SIZE;
  const limit = /^[0-9]{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE_SIZE)) {
    problems.push(`limit: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    return DEFAULT_PAGE_SIZE;
  }
  return limit;
}

function parseBoolean(name: string, text: string | undefined, problems: Problems): boolean | undefined {
  if (text === undefined) return undefined;
  if (text === "true") return true;
  if (text === "false") return false;
  problems.push(`${name}: must be true or false`);
  return undefined;
}

function parseAddress(name: string, text: string | undefined, problems: Problems): string | undefined {
  if (text === undefined) return undefined;
  if (isAddress(text)) return text;
  problems.push(`${name}: must be a base58 address`);
  return undefined;
}

function throwIfAny(problems: Problems): void {
  if (problems.length > 0) throw new HttpError(400, problems);
}
