import { setImmediate } from "node:timers";
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
import { createRefreshingSnapshot, type RefreshingSnapshot, type Schedule } from "../../application/registry/refreshing-snapshot.ts";
import { emptySliceStats, runInSlices, type SliceStats, type YieldToEventLoop } from "../../application/registry/sliced-runner.ts";
import { agentCatalogWork, buildAgentCatalog, type AgentCatalog } from "../../domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { AGENT_IDENTITY_DISCRIMINATOR, AGENT_OWNER_OFFSET, decodeAgentIdentity } from "../../domain/registry/agent-identity.ts";
import { AGENT_SERVICE_DISCRIMINATOR, decodeAgentService } from "../../domain/registry/agent-service.ts";
import { FEEDBACK_ENTRY_DISCRIMINATOR, decodeFeedbackEntry } from "../../domain/registry/feedback-entry.ts";
import { selectFeedback, type FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { selectServices, type ServiceRecord } from "../../domain/registry/service-selection.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import { createDecodeCache, type DecodeCache, type DecodedAccounts } from "./decode-cache.ts";
import type { ProgramAccountReader } from "./rpc-program-account-reader.ts";

/** What one refresh of one kind cost; `busyMs` is the event-loop time of its own work (not the ledger read). */
export type RefreshReport = Readonly<{
  kind: "agents" | "feedback" | "services";
  wallMs: number;
  readMs: number;
  busyMs: number;
  longestSliceMs: number;
  accounts: number;
  changed: number;
}>;

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
  /**
   * How full reads get a program's accounts; `ledger.getProgramAccounts` by default. With a JSON-RPC
   * node, createRpcProgramAccountReader parses the (large) answer in a Worker instead.
   */
  readProgramAccounts?: ProgramAccountReader;
  /** Longest stretch of refresh work before pending requests get the event loop; default 5 ms. */
  sliceMs?: number;
  /** How the refresh gives the event loop back; setImmediate by default. */
  yieldNow?: YieldToEventLoop;
  /** Timer of the refresh ahead of expiry (tests inject their own). */
  schedule?: Schedule;
  /** Told of every finished refresh (benchmarks, metrics). */
  onRefresh?: (report: RefreshReport) => void;
}>;

const yieldBySetImmediate: YieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

type ByMint<T> = ReadonlyMap<string, readonly T[]>;

/**
 * The registry read model over the ledger. Three independent snapshots, each one
 * getProgramAccounts call (discriminator memcmp) per TTL: agents (what the list needs), and
 * feedback and services, loaded only once a detail, feedback or services request asks. Request
 * traffic therefore never multiplies RPC calls: at most three per TTL, whatever the load.
 *
 * Requests do not wait for refreshes (except the very first load, and a read after an idle TTL):
 * refreshes start ahead of expiry (refreshing-snapshot.ts), and their work after the ledger read
 * (byte comparison, decoding of what changed, the catalog update) runs in slices of `sliceMs`
 * between which pending requests are served. The new model replaces the old one in one step.
 */
export function createAgentIndex(deps: AgentIndexDeps): AgentIndex {
  const { ledger, clock, programId, ttlMs, logger, feedbackDetails } = deps;
  const retryMs = deps.retryMs ?? Math.min(ttlMs, 5_000);
  const sliceMs = deps.sliceMs ?? 5;
  const yieldNow = deps.yieldNow ?? yieldBySetImmediate;
  const log = logger.child({ component: "agent-index" });

  function snapshot<T>(kind: RefreshReport["kind"], load: (stats: SliceStats, reported: (accounts: number, changed: number, readMs: number) => void) => Promise<T>): RefreshingSnapshot<T> {
    return createRefreshingSnapshot({
      ...(deps.schedule ? { schedule: deps.schedule } : {}),
      load: async () => {
        const started = performance.now();
        const stats = emptySliceStats();
        let counts = { accounts: 0, changed: 0, readMs: 0 };
        try {
          const value = await load(stats, (accounts, changed, readMs) => (counts = { accounts, changed, readMs }));
          const report: RefreshReport = { kind, wallMs: performance.now() - started, busyMs: stats.busyMs, longestSliceMs: stats.longestMs, ...counts };
          log.debug("registry refresh", { ...report, wallMs: Math.round(report.wallMs), busyMs: Math.round(report.busyMs) });
          deps.onRefresh?.(report);
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

  const inSlices = <T>(work: SlicedWork<T>, stats: SliceStats) => runInSlices(work, { sliceMs, yieldNow, stats });
  const readAccounts: ProgramAccountReader = deps.readProgramAccounts ?? ((program, filters) => ledger.getProgramAccounts(program, filters));

  /** Reads one kind from the ledger and decodes it against the last refresh, in slices. */
  async function loadAll<R>(
    kind: string,
    discriminator: ReadonlyUint8Array,
    cache: DecodeCache<R>,
    stats: SliceStats,
    reported: (accounts: number, changed: number, readMs: number) => void,
  ): Promise<DecodedAccounts<R>> {
    const readStart = performance.now();
    const accounts = await readAccounts(programId, [discriminatorFilter(discriminator)]);
    const readMs = performance.now() - readStart;
    const decoded = await inSlices(cache.refresh(accounts), stats);
    reportSkipped(kind, decoded.skipped);
    reported(accounts.length, decoded.changed, readMs);
    return decoded;
  }

  const agentCache = createDecodeCache(programId, decodeAgentIdentity, (address, identity): AgentRecord => ({ address, identity }));
  const feedbackCache = createDecodeCache(programId, decodeFeedbackEntry, (address, entry): FeedbackRecord => ({ address, entry }));
  const serviceCache = createDecodeCache(programId, decodeAgentService, (address, service): ServiceRecord => ({ address, service }));

  const agents: RefreshingSnapshot<AgentCatalog> = snapshot("agents", async (stats, reported) => {
    const { records, changed } = await loadAll("agents", AGENT_IDENTITY_DISCRIMINATOR, agentCache, stats, reported);
    const previous = agents.peek();
    // Nothing changed: the same catalog (and every response rendered from it) stays.
    if (previous && changed === 0) return previous;
    return inSlices(agentCatalogWork(records, previous), stats);
  });
  const feedback: RefreshingSnapshot<ByMint<FeedbackRecord>> = snapshot("feedback", async (stats, reported) => {
    const { records, changed } = await loadAll("feedback", FEEDBACK_ENTRY_DISCRIMINATOR, feedbackCache, stats, reported);
    feedbackDetails?.indexed(records);
    const previous = feedback.peek();
    if (previous && changed === 0) return previous;
    return inSlices(groupByMint(records, (r) => r.entry.nftMint), stats);
  });

  function withDetailUri(record: FeedbackRecord): FeedbackRecord {
    const detailUri = feedbackDetails?.detailUriOf(record.address);
    return detailUri === undefined ? record : { ...record, detailUri };
  }
  const services: RefreshingSnapshot<ByMint<ServiceRecord>> = snapshot("services", async (stats, reported) => {
    const { records, changed } = await loadAll("services", AGENT_SERVICE_DISCRIMINATOR, serviceCache, stats, reported);
    const previous = services.peek();
    if (previous && changed === 0) return previous;
    return inSlices(groupByMint(records, (r) => r.service.nftMint), stats);
  });

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

function* groupByMint<T>(records: readonly T[], mintOf: (record: T) => string): SlicedWork<ByMint<T>> {
  const groups = new Map<string, T[]>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as T;
    const group = groups.get(mintOf(record));
    if (group) group.push(record);
    else groups.set(mintOf(record), [record]);
    if ((i & 1023) === 1023) yield;
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
