import { getAddressEncoder, type Address, type ReadonlyUint8Array } from "@solana/kit";
import { RegistryIndexUnavailableError, type AgentIndex } from "../../application/ports/agent-index.ts";
import type { Clock } from "../../application/ports/clock.ts";
import type { Ledger, ProgramAccountFilter } from "../../application/ports/ledger.ts";
import type { Logger } from "../../application/ports/logger.ts";
import type { ProgramAccountFeed, ProgramFeedSubscription } from "../../application/ports/program-account-feed.ts";
import type { RegistryAccountStore, RegistryIndexWriterElection } from "../../application/ports/registry-account-store.ts";
import type { FeedbackDetails } from "../../application/registry/feedback-detail-backfill.ts";
import { createIndexPersister, type IndexPersister } from "../../application/registry/index-persister.ts";
import { unrefTimeout, type Schedule } from "../../application/registry/refreshing-snapshot.ts";
import { emptySliceStats, runInSlices, type SliceStats, type YieldToEventLoop } from "../../application/registry/sliced-runner.ts";
import { agentCatalogChanges, agentCatalogWork, type AgentCatalog } from "../../domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { decodeIndexedAgent } from "../../domain/registry/indexed-agent-decoder.ts";
import { AGENT_IDENTITY_DISCRIMINATOR, AGENT_OWNER_OFFSET } from "../../domain/registry/agent-identity.ts";
import { AGENT_SERVICE_DISCRIMINATOR, decodeAgentService } from "../../domain/registry/agent-service.ts";
import { FEEDBACK_ENTRY_DISCRIMINATOR, decodeFeedbackEntry } from "../../domain/registry/feedback-entry.ts";
import { selectFeedback, type FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { selectServices, type ServiceRecord } from "../../domain/registry/service-selection.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import { createRecordBaseline, type AccountWrite } from "./account-baseline.ts";
import { createAgentSnapshotWriter, restoreAgentSnapshot, type AgentSnapshotWriter } from "./agent-snapshot.ts";
import { backgroundTurn } from "./event-loop-turns.ts";
import { groupedSpec } from "./grouped-kind-spec.ts";
import { indexHealth, safeMessage } from "./index-health.ts";
import { createLiveKind, type AccountKind, type KindEnv, type KindSpec, type LiveKind, type RefreshReport } from "./live-account-kind.ts";
import type { ProgramAccountReader } from "./rpc-program-account-reader.ts";

export type { RefreshReport };
/** Kept importable from here (the index's error text). */
export { safeMessage };

export type AgentIndexDeps = Readonly<{
  ledger: Ledger;
  clock: Clock;
  programId: Address;
  /**
   * REGISTRY_CACHE_TTL_SECONDS * 1000: without a live feed, a full read this often (at least 1 s),
   * so a change shows within it.
   */
  ttlMs: number;
  logger: Logger;
  /**
   * Pushed writes of the program's accounts (programSubscribe). With it, a change shows within a
   * batch (`feedBatchMs`), and full reads run every `reconcileMs` and when the feed comes back.
   */
  feed?: ProgramAccountFeed;
  /** Between full reads while the feed is live (REGISTRY_RECONCILE_INTERVAL_SECONDS * 1000); default 300 s. */
  reconcileMs?: number;
  /** Pushed writes are applied this long after the first of a batch; default 100 ms. */
  feedBatchMs?: number;
  /** The index's accounts kept across restarts (PostgreSQL or PGlite). */
  store?: RegistryAccountStore;
  /**
   * Which of the replicas sharing `store` writes it (createAdvisoryLockWriterElection); default:
   * this one, always. Every replica loads from the store and follows the ledger; only the writer
   * saves, and a replica that becomes it writes its next full reads whole.
   */
  election?: RegistryIndexWriterElection;
  /**
   * After a full read of the agents, the writer stores a snapshot of the built index if its last
   * one is this old (agent-snapshot.ts); default 10 minutes. A restart serves from it.
   */
  snapshotEveryMs?: number;
  /** Accounts per store write (see createIndexPersister); default 250. */
  storeBatchSize?: number;
  /** Wait after a failed full read before retrying; default min(ttlMs, 5 s) (at least 1 s). */
  retryMs?: number;
  /**
   * Detail URIs of feedback entries (read from their give_feedback transactions in the background):
   * told of every feedback entry indexed, asked when feedback is listed. Without it `detailUri` stays unknown.
   */
  feedbackDetails?: FeedbackDetails;
  /**
   * How full reads get a program's accounts; `ledger.getProgramAccounts` by default. With a JSON-RPC
   * node, createRpcProgramAccountReader parses the (large) answer in a Worker instead.
   */
  readProgramAccounts?: ProgramAccountReader;
  /** Longest stretch of index work before pending requests get the event loop; default 5 ms. */
  sliceMs?: number;
  /** How index work gives the event loop back; by default a turn of the process's queue (event-loop-turns.ts). */
  yieldNow?: YieldToEventLoop;
  /** This thread's CPU time in ms, to report slices in CPU time too (benchmarks). */
  cpuNow?: () => number;
  /** Timers (full reads, batches, store writes); tests inject their own. */
  schedule?: Schedule;
  /** Told of every finished step (benchmarks, metrics). */
  onRefresh?: (report: RefreshReport) => void;
  /**
   * Load at the first request instead of at once: for a facilitator-only process, which asks the
   * index only under PAYTO_POLICY=registered-agents. Default false (warm from start-up).
   */
  startLazily?: boolean;
}>;

/** The index, and what the composition needs to start and stop it. */
export type LiveAgentIndex = AgentIndex &
  Readonly<{
    /** Resolves once the three kinds have a model (from the store or a first full read). */
    ready(): Promise<void>;
    /** Once ready, applies the pushed writes received so far without waiting for their batch (tests, tools). */
    caughtUp(): Promise<void>;
    /** Stops timers and the feed, and saves what is queued for the store. */
    close(): Promise<void>;
  }>;

/** How long the first full read waits for the feed to be live (so it misses nothing), at most. */
const FEED_WAIT_MS = 3_000;
const KINDS = ["agents", "feedback", "services"] as const;
const DISCRIMINATORS: Readonly<Record<AccountKind, ReadonlyUint8Array>> = {
  agents: AGENT_IDENTITY_DISCRIMINATOR,
  feedback: FEEDBACK_ENTRY_DISCRIMINATOR,
  services: AGENT_SERVICE_DISCRIMINATOR,
};

/**
 * The registry read model, kept warm: agents (list, detail, owners), feedback and services are
 * all loaded at start-up (from the store when it holds a complete copy, else by one
 * getProgramAccounts each with a discriminator memcmp) and then follow the ledger, so no request
 * waits for a load after start-up and none causes a ledger read.
 *
 * With a feed, the program's writes are applied as they come (a change shows within about
 * `feedBatchMs`), and a full read runs every `reconcileMs` and after each (re)connect to catch
 * what a feed cannot tell (closed accounts, missed notices). Without one, a full read runs every
 * TTL. All work after a read runs in slices of `sliceMs`; a model is replaced in one step.
 */
export function createAgentIndex(deps: AgentIndexDeps): LiveAgentIndex {
  const { ledger, clock, programId, logger, feedbackDetails } = deps;
  const pollMs = Math.max(1_000, deps.ttlMs);
  const sliceMs = deps.sliceMs ?? 5;
  const yieldNow = deps.yieldNow ?? backgroundTurn;
  const schedule = deps.schedule ?? unrefTimeout;
  const log = logger.child({ component: "agent-index" });
  const persister: IndexPersister | null = deps.store
    ? createIndexPersister({
        store: deps.store,
        logger,
        schedule,
        ...(deps.election ? { election: deps.election, onElected: makeWhole } : {}),
        ...(deps.storeBatchSize ? { batchSize: deps.storeBatchSize } : {}),
      })
    : null;

  const env: KindEnv = {
    read: deps.readProgramAccounts ?? ((program, filters) => ledger.getProgramAccounts(program, filters)),
    filtersOf: (discriminator) => [discriminatorFilter(discriminator)],
    programId,
    inSlices: <T>(work: SlicedWork<T>, stats: SliceStats) => runInSlices(work, { sliceMs, yieldNow, stats, ...(deps.cpuNow ? { cpuNow: deps.cpuNow } : {}) }),
    schedule,
    now: () => clock.now(),
    reconcileMs: deps.reconcileMs ?? 300_000,
    pollMs,
    retryMs: Math.max(1_000, deps.retryMs ?? Math.min(deps.ttlMs, 5_000)),
    batchMs: deps.feedBatchMs ?? 100,
    log,
    report: (report) => {
      log.debug("registry index step", { ...report, wallMs: Math.round(report.wallMs), busyMs: Math.round(report.busyMs) });
      if (report.kind === "agents" && report.source === "read") snapshots?.afterFullRead();
      deps.onRefresh?.(report);
    },
    ...(persister ? { persist: (kind: AccountKind, accounts, completeAt, sweep) => persister.persist(kind, accounts, completeAt, sweep) } : {}),
    unavailable: (cause) => new RegistryIndexUnavailableError(`registry index unavailable: ${safeMessage(cause)}`),
  };

  const agentSpec: KindSpec<AgentRecord, AgentCatalog> = {
    kind: "agents",
    discriminator: AGENT_IDENTITY_DISCRIMINATOR,
    baseline: createRecordBaseline<AgentRecord>(programId, decodeIndexedAgent),
    // A full read rebuilds from every record (exact, duplicates of a mint included); unchanged
    // records are the same objects, so only what changed is indexed again.
    rebuilt: function* (previous) {
      return yield* agentCatalogWork(yield* agentSpec.baseline.records(), previous);
    },
    changed: (previous, changes) => agentCatalogChanges(previous, changes.added, changes.removed),
  };
  const agents = createLiveKind(agentSpec, env);
  const feedback = createLiveKind(
    groupedSpec(programId, "feedback", FEEDBACK_ENTRY_DISCRIMINATOR, decodeFeedbackEntry, (address, entry): FeedbackRecord => ({ address, entry }), (r) => r.entry.nftMint, feedbackDetails),
    env,
  );
  const services = createLiveKind(
    groupedSpec(programId, "services", AGENT_SERVICE_DISCRIMINATOR, decodeAgentService, (address, service): ServiceRecord => ({ address, service }), (r) => r.service.nftMint),
    env,
  );
  const kinds: Readonly<Record<AccountKind, LiveKind<unknown>>> = { agents, feedback, services };
  const snapshotDeps = { agents, baseline: agentSpec.baseline, programId, inSlices: <T>(work: SlicedWork<T>) => env.inSlices(work, emptySliceStats()), log };
  const snapshots: AgentSnapshotWriter | null = persister ? createAgentSnapshotWriter(persister, { ...snapshotDeps, everyMs: deps.snapshotEveryMs ?? 600_000, now: () => clock.now() }) : null;

  /** This replica became the store's writer: each kind's next full read is written whole. */
  function makeWhole(): void {
    log.info("writing the registry index whole to the store (this replica became its writer)");
    for (const kind of KINDS) void kinds[kind].makeWhole().catch(() => {});
  }

  const subscriptions: ProgramFeedSubscription[] = [];
  let started: Promise<void> | null = deps.startLazily ? null : start();
  const begun = (): Promise<void> => (started ??= start());

  async function start(): Promise<void> {
    for (const kind of KINDS) {
      if (deps.feed) subscriptions.push(deps.feed.subscribe(programId, [discriminatorFilter(DISCRIMINATORS[kind])], kinds[kind].feed));
    }
    const store = deps.store;
    if (store) {
      await Promise.all(KINDS.map((kind) => restoreKind(store, kind)));
    }
    // Taking the writer role before the first full reads lets them be the reads written whole
    // (instead of one more read each once the first write finds this replica elected).
    if (store && deps.election) {
      const writer = await deps.election.acquire().catch((error: unknown) => {
        log.warn("could not ask whether this replica writes the registry index; retrying with the first write", { error: safeMessage(error) });
        return null;
      });
      if (writer?.elected) for (const kind of KINDS) void kinds[kind].makeWhole();
    }
    for (const kind of KINDS) kinds[kind].start(deps.feed ? FEED_WAIT_MS : 0);
  }

  /** A kind from the store: the agents from the snapshot of the built index when there is one, else the stored accounts. */
  async function restoreKind(store: RegistryAccountStore, kind: AccountKind): Promise<void> {
    if (kind === "agents") {
      const fromSnapshot = await restoreAgentSnapshot(store, snapshotDeps).catch((error: unknown) => {
        log.warn("the stored registry snapshot could not be read; loading the stored accounts", { error: safeMessage(error) });
        return false;
      });
      if (fromSnapshot) return;
    }
    await kinds[kind]
      .restore(async (onPage) => {
        const completeAt = await store.load(kind, (rows) => onPage(rows.map((row): AccountWrite => ({ ...row, owner: programId, lamports: 1n }))));
        return completeAt !== null;
      })
      .catch((error: unknown) => log.warn("the stored registry index could not be read; reading the ledger", { kind, error: safeMessage(error) }));
  }

  function withCreationDetails(record: FeedbackRecord): FeedbackRecord {
    const detailUri = feedbackDetails?.detailUriOf(record.address);
    const paymentReceipt = feedbackDetails?.paymentReceiptOf(record.address);
    if (detailUri === undefined && paymentReceipt === undefined) return record;
    return { ...record, ...(detailUri === undefined ? {} : { detailUri }), ...(paymentReceipt === undefined ? {} : { paymentReceipt }) };
  }

  /** A kind's model; starts the index first when it starts lazily. */
  function modelOf<M>(kind: LiveKind<M>): Promise<M> {
    if (started === null) void begun();
    return kind.model();
  }

  async function knownAgent(nftMint: string): Promise<AgentRecord | null> {
    return (await modelOf(agents)).get(nftMint) ?? null;
  }

  return Object.freeze({
    listAgents: async (request) => (await modelOf(agents)).page(request),
    getAgent: knownAgent,
    listFeedback: async (nftMint, filter) => {
      if (!(await knownAgent(nftMint))) return null;
      return selectFeedback((await modelOf(feedback)).get(nftMint) ?? [], filter).map(withCreationDetails);
    },
    listServices: async (nftMint, filter) => {
      if (!(await knownAgent(nftMint))) return null;
      return selectServices((await modelOf(services)).get(nftMint) ?? [], filter);
    },
    agentsOwnedBy: async (owner) => (await modelOf(agents)).ownedBy(owner),
    health: () => indexHealth(agents, kinds),
    refresh: async () => {
      await begun();
      await Promise.all(KINDS.map((kind) => kinds[kind].reconcile()));
    },
    ready: async () => {
      await begun();
      await Promise.all(KINDS.map((kind) => kinds[kind].model()));
    },
    caughtUp: async () => {
      await begun();
      await Promise.all(KINDS.map((kind) => kinds[kind].model()));
      await Promise.all(KINDS.map((kind) => kinds[kind].caughtUp()));
    },
    close: async () => {
      for (const subscription of subscriptions.splice(0)) subscription.close();
      for (const kind of KINDS) kinds[kind].stop();
      await snapshots?.stop();
      await persister?.stop();
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
