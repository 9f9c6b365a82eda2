/**
 * The x84 SDK's registry client types, transcribed field for field (names, types, optionality)
 * from x84protocol/sdk `src/api/types.ts` at commit 661a5d16f29c1fe0769f72c1dc62c3f74842c587
 * (its `X84ApiClient` in `src/api/index.ts` returns them as `(await res.json()) as T`, unchecked).
 * Declarations only: the SDK is not a dependency, and nothing here is executable code.
 *
 * When the SDK changes these types, transcribe the new version here with its commit: the
 * interop test then fails wherever our responses no longer fit.
 */

// ── Pagination ──

export interface PaginatedResponse<T> {
  data: T[];
  cursor: {
    next: string | null;
    hasMore: boolean;
  };
}

// ── Discovery: Agents ──

export interface AgentListItem {
  nftMint: string;
  owner: string;
  metadataUri?: string;
  categories?: string[];
  active: boolean;
  reputation: ReputationSummary;
}

export interface AgentDetail extends AgentListItem {
  address: string;
  ownerVersion: number;
  feedbackAuthority: string;
  metadataHash?: string;
  tags?: string[];
  delegationCount: number;
  services: AgentService[];
}

// ── Discovery: Services ──

export interface AgentService {
  address: string;
  serviceType: string;
  endpoint?: string;
  version?: string;
  active: boolean;
}

// ── Discovery: Feedback ──

export interface FeedbackEntry {
  address: string;
  reviewer: string;
  score: number;
  detailUri: string;
  tag1: string;
  tag2: string;
  authVerified: boolean;
  hasPaymentProof: boolean;
  paymentAmount: number;
  paymentToken: string;
  createdAt?: string;
}

// ── Discovery: Categories ──

export interface Category {
  name: string;
  hash: string;
}

// ── Discovery: Reputation ──

export interface ReputationSummary {
  verifiedCount: number;
  verifiedAvgScore: number;
  unverifiedCount: number;
  unverifiedAvgScore: number;
  validationCount: number;
}
