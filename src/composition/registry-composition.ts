/**
 * The registry's wiring: its read model (the agent index, kept in the store and fed by the
 * program's writes), and what the registry app is given: categories, registration, sign-in, the
 * per-client limits and the health probes.
 */
import type { Address } from "@solana/kit";
import { REGISTRY_READINESS } from "../application/health.ts";
import { systemClock } from "../application/ports/clock.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { MetadataFetcher } from "../application/ports/metadata-fetcher.ts";
import { createFeedbackDetailBackfill } from "../application/registry/feedback-detail-backfill.ts";
import type { CategoryCatalog } from "../domain/registry/categories.ts";
import { createAgentPayments } from "../application/registry/agent-payments.ts";
import { createSqlPaymentStats } from "../infrastructure/store/sql-payment-stats.ts";
import { type ClientAddresses, createClientAddresses } from "../http/client-address.ts";
import type { RegistryAppDeps } from "../http/registry-app.ts";
import { type AppConfig, authAllowedOrigins } from "../infrastructure/config/app-config.ts";
import type { ServiceConfig } from "../infrastructure/config/service-config.ts";
import { createLocalProgramFeed } from "../infrastructure/ledger/local-program-feed.ts";
import { createRpcLedger } from "../infrastructure/ledger/rpc-ledger.ts";
import { createRpcProgramFeed } from "../infrastructure/ledger/rpc-program-feed.ts";
import type { EnterLogContext } from "../application/ports/log-context.ts";
import type { PrometheusMetrics } from "../infrastructure/metrics/prometheus-metrics.ts";
import { type LiveAgentIndex, createAgentIndex } from "../infrastructure/registry/ledger-agent-index.ts";
import { createRpcProgramAccountReader } from "../infrastructure/registry/rpc-program-account-reader.ts";
import type { OpenedStore } from "../infrastructure/store/open-store.ts";
import { createSqlFeedbackDetailUriStore } from "../infrastructure/store/sql-feedback-detail-uri-store.ts";
import { createSqlRegistryAccountStore } from "../infrastructure/store/sql-registry-account-store.ts";
import { createAdvisoryLockWriterElection } from "../infrastructure/store/registry-index-writer-election.ts";
import { createAuth } from "./auth-composition.ts";
import { NEUTRAL_DETAIL, ping, toOperators } from "./health-probes.ts";
import { type Registration, createRegistration } from "./registration-composition.ts";
import type { Ledgers, Storage } from "./shared-composition.ts";

export type RegistryIndex = Readonly<{ index: LiveAgentIndex; close(): Promise<void> }>;

/**
 * The registry index (docs/registry.md#data-freshness): warm from start-up, kept in the store, and
 * following the program's writes through programSubscribe (the embedded ledger's own, in process).
 */
export function composeRegistryIndex(config: AppConfig, ledgers: Ledgers, store: OpenedStore, logger: Logger): RegistryIndex {
  const { ledger, embeddedLedger } = ledgers;
  const programId = config.REGISTRY_PROGRAM_ID as Address;
  // Feedback detail URIs, read from give_feedback transactions in the background (docs/registry.md). Not
  // asked of the in-process ledger: its registry accounts come from cheat codes, with no transaction behind them.
  const feedbackDetails = config.SOLANA_RPC_URL
    ? createFeedbackDetailBackfill({ history: createRpcLedger({ url: config.SOLANA_RPC_URL, timeoutMs: config.LEDGER_RPC_TIMEOUT_MS, logger }), store: createSqlFeedbackDetailUriStore(store.executor), programId, clock: systemClock, logger })
    : undefined;
  const index = createAgentIndex({
    ledger,
    clock: systemClock,
    programId,
    ttlMs: config.REGISTRY_CACHE_TTL_SECONDS * 1000,
    reconcileMs: config.REGISTRY_RECONCILE_INTERVAL_SECONDS * 1000,
    logger,
    feed: embeddedLedger ? createLocalProgramFeed(embeddedLedger) : createRpcProgramFeed({ url: pubsubUrlOf(config), logger }),
    // The embedded ledger starts empty at every start: a saved index would list agents it no longer has.
    ...(embeddedLedger ? {} : registryIndexStore(store.executor, programId, logger)),
    // A facilitator-only process asks the index only to check payTo against registered agents.
    startLazily: config.ROLE === "facilitator" && config.PAYTO_POLICY !== "registered-agents",
    ...(feedbackDetails ? { feedbackDetails } : {}),
    ...(config.SOLANA_RPC_URL ? { readProgramAccounts: createRpcProgramAccountReader({ url: config.SOLANA_RPC_URL, answerTimeoutMs: config.LEDGER_RPC_TIMEOUT_MS }) } : {}),
  });
  return Object.freeze({
    index,
    close: async () => {
      await feedbackDetails?.stop();
      await index.close();
    },
  });
}

export type RegistryWiring = Readonly<{
  config: ServiceConfig;
  env: Readonly<Record<string, string | undefined>>;
  ledgers: Ledgers;
  storage: Storage;
  index: LiveAgentIndex;
  categories: CategoryCatalog;
  /** The facilitator key named in a development ProtocolConfig. */
  facilitator: Address | undefined;
  metrics: PrometheusMetrics;
  enterLogContext: EnterLogContext;
  logger: Logger;
  version: string;
  metadataFetcher?: MetadataFetcher | undefined;
}>;

export type Registry = Readonly<{
  registryDeps: RegistryAppDeps;
  registration: Registration;
  /** The listener records each request's peer here; the registry's per-client limits read it. */
  clientAddresses: ClientAddresses;
}>;

export async function composeRegistry(wiring: RegistryWiring): Promise<Registry> {
  const { config, ledgers, storage, index, categories, metrics, logger } = wiring;
  const { store, counters } = storage;
  const registration = await createRegistration({
    config,
    env: wiring.env,
    ledger: ledgers.ledger,
    embeddedLedger: ledgers.embeddedLedger,
    categories,
    counters: counters.counters("register-rate", 60),
    clock: systemClock,
    logger: logger.child({ component: "registration" }),
    facilitator: wiring.facilitator,
    ...(wiring.metadataFetcher ? { metadataFetcher: wiring.metadataFetcher } : {}),
  });
  // Sign-In With Solana and GET /users/me (docs/auth.md); nothing for a facilitator-only process.
  const auth = await createAuth(config, { executor: store.executor, index, counters: counters.counters("auth-challenge-rate", 60), clock: systemClock, logger });
  const clientAddresses = createClientAddresses();
  const registryDeps: RegistryAppDeps = {
    clientAddressOf: clientAddresses.of,
    metrics,
    enterLogContext: wiring.enterLogContext,
    index,
    categories,
    // Payments settled through this facilitator to agents' owners (docs/registry.md#payments), cached.
    payments: createAgentPayments({ stats: createSqlPaymentStats(store.executor, config.NETWORK), clock: systemClock }),
    registration: registration.deps,
    rateLimit: registration.rateLimit,
    allowLoopbackMetadata: registration.allowLoopbackMetadata,
    trustForwardedFor: config.RATE_LIMIT_TRUST_FORWARDED_FOR,
    cors: { allowedOrigins: authAllowedOrigins(config) },
    ...(auth ? { auth } : {}),
    logger,
    version: wiring.version,
    health: {
      readiness: REGISTRY_READINESS,
      failuresBeforeDown: config.READINESS_FAILURE_THRESHOLD,
      // The sign-in and registration rate limits fail closed (503) without them; reads go on.
      ...(counters.ping ? { counters: toOperators(logger, "counters", ping(counters.ping), "degraded") } : {}),
      // The index serves its last good model when the ledger fails, so the registry degrades instead of dying.
      ledger: async () => {
        const h = index.health();
        if (h.status === "ok") return { status: "ok" };
        if (h.lastError === null) return { status: "degraded", detail: "index not loaded yet" };
        // SECURITY: the index's last error is the ledger's (redacted) words: logged, not answered.
        logger.warn("health check failed", { check: "ledger", status: "degraded", detail: h.lastError });
        return { status: "degraded", detail: NEUTRAL_DETAIL.ledger };
      },
      store: toOperators(logger, "store", ping(() => store.ping()), "degraded"),
      // Reads need no key; without a config authority only registration is off.
      signer: async () =>
        registration.configAuthority
          ? { status: "ok" }
          : { status: "degraded", detail: "no config authority key configured: POST /agents/register is disabled" },
    },
  };
  return Object.freeze({ registryDeps, registration, clientAddresses });
}

/**
 * The registry index's copy in the store. PGlite runs in this thread: small pages and batches keep
 * each of its statements to a few ms (docs/registry.md#the-index-in-the-store).
 */
function registryIndexStore(executor: OpenedStore["executor"], programId: Address, logger: Logger) {
  const pglite = executor.kind === "pglite";
  const options = { pageRows: pglite ? 150 : 2_000, snapshotChunksPerStatement: pglite ? 1 : 8 };
  return {
    store: createSqlRegistryAccountStore(executor, programId, options),
    // Replicas sharing a PostgreSQL database elect one writer (docs/scaling.md#how-replicas-share-the-store).
    election: createAdvisoryLockWriterElection(executor, programId, { ...options, logger }),
    storeBatchSize: pglite ? 100 : 500,
  };
}

/**
 * SOLANA_WS_URL, or SOLANA_RPC_URL with ws(s):// on the same host and port, as hosted nodes serve
 * their pubsub (a local test validator serves it on the next port: set SOLANA_WS_URL for it).
 */
export function pubsubUrlOf(config: AppConfig): string {
  return config.SOLANA_WS_URL ?? (config.SOLANA_RPC_URL ?? "").replace(/^http/i, "ws");
}
