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
  /** `live`: changes arrive as pushed writes; `polling`: by a full read every TTL (no feed, or it is down). */
  feed?: "live" | "polling";
}>;

/**
 * Read model of the registry program's accounts, kept current in memory: reads never wait for the
 * ledger (after start-up) and never cause a ledger read.
 */
export type AgentIndex = Readonly<{
  listAgents(request: AgentPageRequest): Promise<AgentPage>;
  /** null when no agent with this mint is indexed. */
  getAgent(nftMint: string): Promise<AgentRecord | null>;
  /** null when the agent is unknown. */
  listFeedback(nftMint: string, filter: FeedbackFilter): Promise<readonly FeedbackRecord[] | null>;
  /** null when the agent is unknown. */
  listServices(nftMint: string, filter: ServiceFilter): Promise<readonly ServiceRecord[] | null>;
  /** Every agent `owner` owns, from the read model (which follows the ledger's writes within seconds). */
  agentsOwnedBy(owner: Address): Promise<readonly AgentRecord[]>;
  health(): RegistryIndexHealth;
  /** Forces a full read of every kind (after any running one). */
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
