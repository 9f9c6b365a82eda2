import { getAddressEncoder, type Address, type ReadonlyUint8Array } from "@solana/kit";
import {
  RegistryIndexUnavailableError,
  type AgentIndex,
  type RegistryIndexHealth,
} from "../../application/ports/agent-index.ts";
import type { Clock } from "../../application/ports/clock.ts";
import type { Ledger, ProgramAccountFilter } from "../../application/ports/ledger.ts";
import type { Logger } from "../../application/ports/logger.ts";
import type { FeedbackDetails } from "../../application/registry/feedback-detail-backfill.ts";
import { createRefreshingSnapshot, type RefreshingSnapshot } from "../../application/registry/refreshing-snapshot.ts";
import { buildAgentCatalog, type AgentCatalog, type AgentRecord } from "../../domain/registry/agent-catalog.ts";
import { AGENT_IDENTITY_DISCRIMINATOR, AGENT_OWNER_OFFSET, decodeAgentIdentity } from "../../domain/registry/agent-identity.ts";
import { AGENT_SERVICE_DISCRIMINATOR, decodeAgentService } from "../../domain/registry/agent-service.ts";
import { FEEDBACK_ENTRY_DISCRIMINATOR, decodeFeedbackEntry } from "../../domain/registry/feedback-entry.ts";
import { selectFeedback, type FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { selectServices, type ServiceRecord } from "../../domain/registry/service-selection.ts";
import { createDecodeCache, type DecodeCache } from "./decode-cache.ts";

export type AgentIndexDeps = Readonly<{
  ledger: Ledger;
  clock: Clock;
  programId: Address;
  /** Cache lifetime (REGISTRY_CACHE_TTL_SECONDS * 1000). */
  ttlMs: number;
  logger: Logger;
  /** Wait after a failed refresh before retrying; default min(ttlMs, 5 s). */
  retryMs?: number;
  /**
   * Detail URIs of feedback entries (read from their give_feedback transactions in the background):
   * told of every feedback refresh, asked when feedback is listed. Without it `detailUri` stays unknown.
   */
  feedbackDetails?: FeedbackDetails;
}>;

type ByMint<T> = ReadonlyMap<string, readonly T[]>;

/**
 * The registry read model over the ledger. Three independent snapshots, each one
 * getProgramAccounts call (discriminator memcmp) per TTL: agents (what the list needs), and
 * feedback and services, loaded only once a detail, feedback or services request asks. Request
 * traffic therefore never multiplies RPC calls: at most three per TTL, whatever the load.
 */
export function createAgentIndex(deps: AgentIndexDeps): AgentIndex {
  const { ledger, clock, programId, ttlMs, logger, feedbackDetails } = deps;
  const retryMs = deps.retryMs ?? Math.min(ttlMs, 5_000);
  const log = logger.child({ component: "agent-index" });

  function snapshot<T>(kind: string, load: () => Promise<T>): RefreshingSnapshot<T> {
    return createRefreshingSnapshot({
      load: async () => {
        const started = performance.now();
        try {
          const value = await load();
          log.debug("registry refresh", { kind, ms: Math.round(performance.now() - started) });
          return value;
        } catch (error) {
          log.warn("registry refresh failed; serving the last good model", { kind, error: safeMessage(error) });
          throw error;
        }
      },
      clock,
      ttlMs,
      retryMs,
      unavailable: (cause) => new RegistryIndexUnavailableError(`registry index unavailable: ${safeMessage(cause)}`),
    });
  }

  function reportSkipped(kind: string, skipped: readonly string[]): void {
    if (skipped.length === 0) return;
    log.warn("skipped registry accounts that do not decode", { kind, count: skipped.length, sample: skipped.slice(0, 5) });
  }

  async function loadAll<R>(kind: string, discriminator: ReadonlyUint8Array, cache: DecodeCache<R>): Promise<R[]> {
    const { records, skipped } = cache.refresh(await ledger.getProgramAccounts(programId, [discriminatorFilter(discriminator)]));
    reportSkipped(kind, skipped);
    return records;
  }

  const agentCache = createDecodeCache(programId, decodeAgentIdentity, (address, identity): AgentRecord => ({ address, identity }));
  const feedbackCache = createDecodeCache(programId, decodeFeedbackEntry, (address, entry): FeedbackRecord => ({ address, entry }));
  const serviceCache = createDecodeCache(programId, decodeAgentService, (address, service): ServiceRecord => ({ address, service }));

  const agents = snapshot("agents", async () => buildAgentCatalog(await loadAll("agents", AGENT_IDENTITY_DISCRIMINATOR, agentCache)));
  const feedback = snapshot("feedback", async () => {
    const records = await loadAll("feedback", FEEDBACK_ENTRY_DISCRIMINATOR, feedbackCache);
    feedbackDetails?.indexed(records);
    return groupByMint(records, (r) => r.entry.nftMint);
  });

  function withDetailUri(record: FeedbackRecord): FeedbackRecord {
    const detailUri = feedbackDetails?.detailUriOf(record.address);
    return detailUri === undefined ? record : { ...record, detailUri };
  }
  const services = snapshot("services", async () =>
    groupByMint(await loadAll("services", AGENT_SERVICE_DISCRIMINATOR, serviceCache), (r) => r.service.nftMint),
  );

  async function knownAgent(nftMint: string): Promise<AgentRecord | null> {
    return (await agents.get()).get(nftMint) ?? null;
  }

  return Object.freeze({
    listAgents: async (request) => (await agents.get()).page(request),
    getAgent: knownAgent,
    listFeedback: async (nftMint, filter) => {
      if (!(await knownAgent(nftMint))) return null;
      return selectFeedback((await feedback.get()).get(nftMint) ?? [], filter).map(withDetailUri);
    },
    listServices: async (nftMint, filter) => {
      if (!(await knownAgent(nftMint))) return null;
      return selectServices((await services.get()).get(nftMint) ?? [], filter);
    },
    agentsOwnedBy: async (owner) => {
      const filters = [discriminatorFilter(AGENT_IDENTITY_DISCRIMINATOR), ownerFilter(owner)];
      const { records, skipped } = agentCache.decodeOnly(await ledger.getProgramAccounts(programId, filters));
      reportSkipped("agents-by-owner", skipped);
      return buildAgentCatalog(records).ownedBy(owner);
    },
    health: () => indexHealth(agents, [agents, feedback, services]),
    refresh: async () => {
      await agents.refresh();
    },
  });
}

export function discriminatorFilter(discriminator: ReadonlyUint8Array): ProgramAccountFilter {
  return { memcmp: { offset: 0, bytes: new Uint8Array(discriminator) } };
}

/** `AgentIdentity.owner` sits at a fixed offset (40), so the RPC can filter by owner. */
export function ownerFilter(owner: Address): ProgramAccountFilter {
  return { memcmp: { offset: AGENT_OWNER_OFFSET, bytes: new Uint8Array(getAddressEncoder().encode(owner)) } };
}

function groupByMint<T>(records: readonly T[], mintOf: (record: T) => string): ByMint<T> {
  const groups = new Map<string, T[]>();
  for (const record of records) {
    const group = groups.get(mintOf(record));
    if (group) group.push(record);
    else groups.set(mintOf(record), [record]);
  }
  return groups;
}

function indexHealth(
  agents: RefreshingSnapshot<AgentCatalog>,
  all: readonly RefreshingSnapshot<unknown>[],
): RegistryIndexHealth {
  const failing = all.map((s) => s.state()).filter((s) => s.lastErrorAt !== null);
  const latest = failing.sort((a, b) => (b.lastErrorAt ?? 0) - (a.lastErrorAt ?? 0))[0];
  const lastSuccessAt = agents.state().lastSuccessAt;
  return {
    status: failing.length === 0 ? "ok" : "degraded",
    lastRefreshAt: lastSuccessAt === null ? null : new Date(lastSuccessAt).toISOString(),
    lastError: latest ? safeMessage(latest.lastError) : null,
    agentCount: agents.peek()?.size ?? 0,
  };
}

/** SECURITY: RPC URLs can embed API keys; error text leaves the process (logs, /health) without them. */
export function safeMessage(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "<url>").slice(0, 300);
}
