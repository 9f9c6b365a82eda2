import { join } from "node:path";
import type { Address } from "@solana/kit";
import pkg from "../../package.json" with { type: "json" };
import { REGISTRY_READINESS } from "../application/health.ts";
import type { Ledger } from "../application/ports/ledger.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { Signer } from "../application/ports/signer.ts";
import { systemClock, systemRepeater } from "../application/ports/clock.ts";
import { checkLedgerNetwork, createNetworkGuard, describeNetworkMismatch } from "../application/ledger-network.ts";
import { startReconcilerLoop } from "../application/settlement/reconciler-loop.ts";
import { type SettlementService } from "../application/settlement/settle-payment.ts";
import { type SignerPool, createSignerPool } from "../application/signer-pool.ts";
import { CodedError } from "../domain/coded-error.ts";
import type { ProtocolFeeSplit } from "../domain/verification/protocol-fee.ts";
import { type AppConfig, adminPortOf, authAllowedOrigins } from "../infrastructure/config/app-config.ts";
import { parseLedgerPrograms } from "@x84/embedded-ledger";
import { createLocalLedger, serveLocalLedgerRpc, type LocalLedger } from "../infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../infrastructure/ledger/rpc-ledger.ts";
import { instrumentLedger } from "../infrastructure/metrics/instrumented-ledger.ts";
import { instrumentSigner } from "../infrastructure/metrics/instrumented-signer.ts";
import { instrumentStore } from "../infrastructure/metrics/instrumented-store.ts";
import { createPrometheusMetrics } from "../infrastructure/metrics/prometheus-metrics.ts";
import { registryIndexGauges, signerHealthGauge } from "../infrastructure/metrics/service-gauges.ts";
import { reconcilerMetrics } from "../infrastructure/metrics/settlement-record-metrics.ts";
import { enterLogContext } from "../infrastructure/logging/log-context.ts";
import { composeFacilitator } from "./facilitator-composition.ts";
import { NEUTRAL_DETAIL, ping, toOperators } from "./health-probes.ts";
import { redactText } from "../infrastructure/logging/redact.ts";
import { createSigners, loadOrCreateDevKeypair, parseSignerConfigs } from "../infrastructure/signers/index.ts";
import { type OpenedStore, openStore } from "../infrastructure/store/index.ts";
import { createFacilitatorApp } from "../http/facilitator-app.ts";
import { type RegistryAppDeps, createRegistryApp } from "../http/registry-app.ts";
import { createAdminFetch } from "../http/admin-app.ts";
import { type ClientAddresses, createClientAddresses } from "../http/client-address.ts";
import { createCategoryCatalog } from "../domain/registry/categories.ts";
import { loadCategoryNames } from "../infrastructure/registry/categories-file.ts";
import { createAgentIndex, type LiveAgentIndex } from "../infrastructure/registry/ledger-agent-index.ts";
import { createRpcProgramAccountReader } from "../infrastructure/registry/rpc-program-account-reader.ts";
import { createLocalProgramFeed } from "../infrastructure/ledger/local-program-feed.ts";
import { createRpcProgramFeed } from "../infrastructure/ledger/rpc-program-feed.ts";
import { createSqlRegistryAccountStore } from "../infrastructure/store/sql-registry-account-store.ts";
import { createAdvisoryLockWriterElection } from "../infrastructure/store/registry-index-writer-election.ts";
import { createFeedbackDetailBackfill } from "../application/registry/feedback-detail-backfill.ts";
import { createSqlFeedbackDetailUriStore } from "../infrastructure/store/sql-feedback-detail-uri-store.ts";
import { createFeePayerProtection } from "./fee-payer-protection.ts";
import { createRegistration } from "./registration-composition.ts";
import { createAuth } from "./auth-composition.ts";
import { windowCounterFactory } from "./window-counters-composition.ts";
import type { MetadataFetcher } from "../application/ports/metadata-fetcher.ts";

export const VERSION: string = pkg.version;

type Env = Readonly<Record<string, string | undefined>>;

/** Lamports the development fee payer gets on a fresh embedded ledger. */
const DEV_FEE_PAYER_LAMPORTS = 100_000_000_000n;
/** How long start-up waits for the ledger's genesis hash before leaving the NETWORK check to recovery. */
const NETWORK_CHECK_DEADLINE_MS = 3_000;

export type Service = Readonly<{
  config: AppConfig;
  ledger: Ledger;
  /** Present when no SOLANA_RPC_URL is set. */
  embeddedLedger: LocalLedger | null;
  store: OpenedStore;
  feePayers: SignerPool;
  settlement: SettlementService | null;
  facilitatorApp: ReturnType<typeof createFacilitatorApp>;
  registryApp: ReturnType<typeof createRegistryApp>;
  /** What ADMIN_PORT serves (/metrics, /openapi, /docs); null when there is no admin port (adminPortOf). */
  admin: ((request: Request) => Promise<Response>) | null;
  /** The registry's read model (tests wait on it: `ready()`, `caughtUp()`). */
  registryIndex: LiveAgentIndex;
  /** The listener records each request's peer here; the registry's per-client limits read it. */
  clientAddresses: ClientAddresses;
  /** Finishes in-flight settlements (bounded), then releases every resource. */
  close(graceMs?: number): Promise<void>;
}>;

/** Settings that cannot make a service: every problem, for main.ts to report before exiting. */
function configurationError(problems: readonly string[]): CodedError<"CONFIGURATION_INVALID"> {
  return new CodedError("CONFIGURATION_INVALID", problems);
}

/**
 * Wires adapters to use cases. Reads nothing from the process itself: `config` and `env`
 * come from main.ts, so tests build the same service with their own settings.
 */
/** Adapters a test may replace: only those that need what cannot run here (the public network). */
export type ServiceAdapters = Readonly<{ metadataFetcher?: MetadataFetcher }>;

export async function buildService(config: AppConfig, env: Env, logger: Logger, adapters: ServiceAdapters = {}): Promise<Service> {
  const acceptedAssets = acceptedAssetsOf(config);
  const protocolFee = protocolFeeOf(config);
  // ── Observability (docs/observability.md) ─────────────────────────────────────────────────────
  // One Prometheus registry for this process, served by both interfaces. The ledger, each signer,
  // the store and the settlement service are wrapped with `instrument*` where they are built, and
  // the gauges read at scrape time are registered at the end; src/application knows no metrics.
  const metrics = createPrometheusMetrics({ processMetrics: true });
  // ───────────────────────────────────────────────────────────────────────────────────────────────
  const embeddedLedger = config.SOLANA_RPC_URL
    ? null
    : createLocalLedger({ logger: logger.child({ component: "ledger" }), programs: parseLedgerPrograms(config.LEDGER_PROGRAMS), mints: acceptedAssets });
  const ledger: Ledger = instrumentLedger(embeddedLedger ?? createRpcLedger({ url: config.SOLANA_RPC_URL ?? "", timeoutMs: config.LEDGER_RPC_TIMEOUT_MS, logger }), metrics);
  // Settlement records carry NETWORK and each reconciler touches only its own network's records, so
  // NETWORK must name this ledger: its genesis hash decides (docs/settlement.md, several networks).
  const ledgerNetwork = await checkLedgerNetwork(ledger, config.NETWORK, NETWORK_CHECK_DEADLINE_MS);
  if (ledgerNetwork.kind === "mismatch") throw configurationError([describeNetworkMismatch(config.NETWORK, ledgerNetwork)]);
  if (ledgerNetwork.kind === "unreachable") logger.warn("NETWORK not checked against the ledger: it did not answer; recovery waits until it does", { error: redactText(ledgerNetwork.error) });

  // Development sample registry (SEED_SAMPLE_AGENTS): agents to browse and one to pay. Never on a real cluster.
  if (config.SEED_SAMPLE_AGENTS && !embeddedLedger) throw configurationError(["SEED_SAMPLE_AGENTS: sample agents are written only to the embedded ledger; unset it (or set false) when SOLANA_RPC_URL is set"]);
  if (embeddedLedger && config.SEED_SAMPLE_AGENTS !== false) {
    const usdcMint = (config.USDC_MINT.split(",")[0] ?? "").trim() as Address;
    // Loaded only here: the seed data (about 300 lines of sample accounts) never enters a process
    // on a real ledger, which production always is (production-guard.ts refuses the embedded one).
    const { seedSampleAgents } = await import("../infrastructure/registry/sample-agents/seed-sample-agents.ts");
    logger.info("seeded sample agents", await seedSampleAgents(embeddedLedger, { programId: config.REGISTRY_PROGRAM_ID as Address, usdcMint }));
  }

  const signerConfigs = parseSignerConfigs(env, "FEE_PAYER_");
  if (!signerConfigs.ok) throw configurationError(signerConfigs.errors);
  const signers: Signer[] = [...(await createSigners(signerConfigs.configs, { env }))];
  if (signers.length === 0 && embeddedLedger) {
    const dev = await loadOrCreateDevKeypair(join(config.DATA_DIR, "fee-payer.json"));
    signers.push(dev.signer);
    logger.info(dev.created ? "generated development fee payer" : "using development fee payer", { address: dev.signer.address });
  }
  const feePayers = createSignerPool(signers.map((signer) => instrumentSigner(signer, metrics)), { clock: systemClock });
  if (embeddedLedger) for (const address of feePayers.addresses) await embeddedLedger.airdrop(address, DEV_FEE_PAYER_LAMPORTS);

  const store = instrumentStore(
    await openStore({
      dataDir: config.DATA_DIR,
      maxConnections: config.DATABASE_POOL_MAX,
      migrate: config.MIGRATE_ON_BOOT,
      logger: logger.child({ component: "store" }),
      ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}),
    }),
    metrics,
  );

  // Feedback detail URIs, read from give_feedback transactions in the background (docs/registry.md). Not
  // asked of the in-process ledger: its registry accounts come from cheat codes, with no transaction behind them.
  const feedbackDetails = config.SOLANA_RPC_URL
    ? createFeedbackDetailBackfill({ history: createRpcLedger({ url: config.SOLANA_RPC_URL, timeoutMs: config.LEDGER_RPC_TIMEOUT_MS, logger }), store: createSqlFeedbackDetailUriStore(store.executor), programId: config.REGISTRY_PROGRAM_ID as Address, clock: systemClock, logger })
    : undefined;
  // The registry index (docs/registry.md#data-freshness): warm from start-up, kept in the store, and
  // following the program's writes through programSubscribe (the embedded ledger's own, in process).
  const index = createAgentIndex({
    ledger,
    clock: systemClock,
    programId: config.REGISTRY_PROGRAM_ID as Address,
    ttlMs: config.REGISTRY_CACHE_TTL_SECONDS * 1000,
    reconcileMs: config.REGISTRY_RECONCILE_INTERVAL_SECONDS * 1000,
    logger,
    feed: embeddedLedger ? createLocalProgramFeed(embeddedLedger) : createRpcProgramFeed({ url: pubsubUrlOf(config), logger }),
    // The embedded ledger starts empty at every start: a saved index would list agents it no longer has.
    ...(embeddedLedger ? {} : registryIndexStore(store.executor, config.REGISTRY_PROGRAM_ID as Address, logger)),
    // A facilitator-only process asks the index only to check payTo against registered agents.
    startLazily: config.ROLE === "facilitator" && config.PAYTO_POLICY !== "registered-agents",
    ...(feedbackDetails ? { feedbackDetails } : {}),
    ...(config.SOLANA_RPC_URL ? { readProgramAccounts: createRpcProgramAccountReader({ url: config.SOLANA_RPC_URL, answerTimeoutMs: config.LEDGER_RPC_TIMEOUT_MS }) } : {}),
  });
  const counters = windowCounterFactory(config, store.executor, { metrics, logger: logger.child({ component: "counters" }) });
  const protection = await createFeePayerProtection(config, { index, counters, clock: systemClock });

  // SECURITY: /metrics (the fee payers' balances and spend), /openapi and /docs move to ADMIN_PORT in
  // production; the public apps then do not register them (src/http/operations-surface.ts).
  const publicSurface = config.NODE_ENV === "production" ? "omit" : "serve";
  const { settlement, facilitatorDeps } = composeFacilitator({ config, acceptedAssets, protocolFee, ledger, store, feePayers, protection, counters, metrics, enterLogContext, logger, version: VERSION });
  const facilitatorApp = createFacilitatorApp(facilitatorDeps, publicSurface);

  const categories = createCategoryCatalog(await loadCategoryNames(config.REGISTRY_CATEGORIES_FILE ?? null));
  const registration = await createRegistration({
    config,
    env,
    ledger,
    embeddedLedger,
    categories,
    counters: counters.counters("register-rate", 60),
    clock: systemClock,
    logger: logger.child({ component: "registration" }),
    facilitator: feePayers.addresses[0],
    ...(adapters.metadataFetcher ? { metadataFetcher: adapters.metadataFetcher } : {}),
  });
  // Sign-In With Solana and GET /users/me (docs/auth.md); nothing for a facilitator-only process.
  const auth = await createAuth(config, { executor: store.executor, index, counters: counters.counters("auth-challenge-rate", 60), clock: systemClock, logger });
  const clientAddresses = createClientAddresses();
  const registryDeps: RegistryAppDeps = {
    clientAddressOf: clientAddresses.of,
    metrics,
    enterLogContext,
    index,
    categories,
    registration: registration.deps,
    rateLimit: registration.rateLimit,
    trustForwardedFor: config.RATE_LIMIT_TRUST_FORWARDED_FOR,
    cors: { allowedOrigins: authAllowedOrigins(config) },
    ...(auth ? { auth } : {}),
    logger,
    version: VERSION,
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
  const registryApp = createRegistryApp(registryDeps, publicSurface);
  // ADMIN_PORT: each interface this process serves, as a second instance that answers its
  // operations routes only (it registers every route, so its OpenAPI document is whole).
  const admin =
    adminPortOf(config) === null
      ? null
      : createAdminFetch({
          ...(config.ROLE !== "registry" ? { facilitator: createFacilitatorApp(facilitatorDeps, "only") } : {}),
          ...(config.ROLE !== "facilitator" ? { registry: createRegistryApp(registryDeps, "only") } : {}),
        });

  // Observability: gauges read at each scrape (docs/observability.md).
  registryIndexGauges(metrics, () => index.health(), systemClock.now);
  signerHealthGauge(metrics, () => feePayers.health());

  // Registry-only pods never settle, so recovery is left to the facilitator pods.
  const reconcile =
    config.ROLE === "registry"
      ? { stop() {} }
      : startReconcilerLoop({
          ledger,
          store: store.settlements,
          logger,
          feeBudget: protection.feeBudget,
          network: config.NETWORK,
          networkGuard: createNetworkGuard(ledger, config.NETWORK, ledgerNetwork),
          recheckFailedSeconds: config.RECONCILE_RECHECK_FAILED_MINUTES * 60,
          intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
          repeat: systemRepeater,
          onPass: reconcilerMetrics(metrics, systemClock.now),
        });

  return Object.freeze({
    config,
    ledger,
    embeddedLedger,
    store,
    feePayers,
    settlement,
    facilitatorApp,
    registryApp,
    admin,
    registryIndex: index,
    clientAddresses,
    close: async (graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000) => {
      reconcile.stop();
      if (settlement) await Promise.race([settlement.drain(), new Promise((r) => setTimeout(r, graceMs))]);
      await feePayers.close();
      await registration.close();
      await counters.close();
      await feedbackDetails?.stop();
      await index.close();
      await store.close();
    },
  });
}

/**
 * The registry index's copy in the store. PGlite runs in this thread: small pages and batches keep
 * each of its statements to a few ms (docs/registry.md#the-index-in-the-store).
 */
function registryIndexStore(executor: OpenedStore["executor"], programId: Address, logger: Logger) {
  const pglite = executor.kind === "pglite";
  const pageRows = pglite ? 150 : 2_000;
  return {
    store: createSqlRegistryAccountStore(executor, programId, { pageRows }),
    // Replicas sharing a PostgreSQL database elect one writer (docs/scaling.md#how-replicas-share-the-store).
    election: createAdvisoryLockWriterElection(executor, programId, { pageRows, logger }),
    storeBatchSize: pglite ? 100 : 500,
  };
}

/**
 * SOLANA_WS_URL, or SOLANA_RPC_URL with ws(s):// on the same host and port, as hosted nodes serve
 * their pubsub (a local test validator serves it on the next port: set SOLANA_WS_URL for it).
 */
function pubsubUrlOf(config: AppConfig): string {
  return config.SOLANA_WS_URL ?? (config.SOLANA_RPC_URL ?? "").replace(/^http/i, "ws");
}

/** USDC_MINT: one or more comma-separated mints (checked as base58 by the config schema). */
function acceptedAssetsOf(config: AppConfig): readonly Address[] {
  return Object.freeze([...new Set(config.USDC_MINT.split(",").map((mint) => mint.trim() as Address))]);
}

/** Both settings or neither: a treasury without bps (or the reverse) is a configuration mistake. */
function protocolFeeOf(config: AppConfig): ProtocolFeeSplit | null {
  const { PROTOCOL_FEE_TREASURY: treasury, PROTOCOL_FEE_BPS: bps } = config;
  if (treasury === undefined && bps === undefined) return null;
  if (treasury === undefined || bps === undefined) throw configurationError(["PROTOCOL_FEE_TREASURY and PROTOCOL_FEE_BPS go together"]);
  return Object.freeze({ treasury: treasury as Address, bps });
}

export { serveLocalLedgerRpc };
