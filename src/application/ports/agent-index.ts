import type { Address } from "@solana/kit";
import { CodedError } from "../../domain/coded-error.ts";
import type { AgentPage, AgentPageRequest } from "../../domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import type { FeedbackFilter, FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import type { ServiceFilter, ServiceRecord } from "../../domain/registry/service-selection.ts";

/**
 * `ok`: the last refresh of every loaded part succeeded. `degraded`: the latest refresh failed and
 * the index serves the last good model (or nothing yet). `lastError` never carries URLs or secrets.
 */
export type RegistryIndexHealth = Readonly<{
  status: "ok" | "degraded";
  /** ISO 8601 time of the last successful agent refresh, null before the first. */
  lastRefreshAt: string | null;
  lastError: string | null;
  agentCount: number;
}>;

/**
 * Read model of the registry program's accounts, cached with a TTL. Reads are answered from
 * memory; an expired model is refreshed once for all concurrent callers.
 */
export type AgentIndex = Readonly<{
  listAgents(request: AgentPageRequest): Promise<AgentPage>;
  /** null when no agent with this mint is indexed. */
  getAgent(nftMint: string): Promise<AgentRecord | null>;
  /** null when the agent is unknown. */
  listFeedback(nftMint: string, filter: FeedbackFilter): Promise<readonly FeedbackRecord[] | null>;
  /** null when the agent is unknown. */
  listServices(nftMint: string, filter: ServiceFilter): Promise<readonly ServiceRecord[] | null>;
  /** Reads the ledger directly (owner memcmp), so an agent registered seconds ago is included. */
  agentsOwnedBy(owner: Address): Promise<readonly AgentRecord[]>;
  health(): RegistryIndexHealth;
  /** Forces a refresh of the agent model (shared with any refresh in flight). */
  refresh(): Promise<void>;
}>;

/**
 * No model has loaded yet and loading failed: the caller answers 503. A CodedError
 * REGISTRY_INDEX_UNAVAILABLE; the subclass only keeps the name its log lines carry.
 */
export class RegistryIndexUnavailableError extends CodedError<"REGISTRY_INDEX_UNAVAILABLE"> {
  override readonly name = "RegistryIndexUnavailableError";
  constructor(message: string) {
    super("REGISTRY_INDEX_UNAVAILABLE", message);
  }
}
