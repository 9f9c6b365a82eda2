/**
 * Wiring both interfaces share: the metrics registry, the ledger (embedded or RPC) checked against
 * NETWORK, the store and the window counters. Each is wrapped with `instrument*` where it is built,
 * so src/application knows no metrics (docs/observability.md).
 */
import { join } from "node:path";
import type { Address } from "@solana/kit";
import { type LedgerNetworkCheck, checkLedgerNetwork, describeNetworkMismatch } from "../application/ledger-network.ts";
import type { Ledger } from "../application/ports/ledger.ts";
import type { Logger } from "../application/ports/logger.ts";
import { CodedError } from "../domain/coded-error.ts";
import { parseLedgerPrograms } from "@x84/embedded-ledger";
import { type AppConfig, acceptedAssetsOf } from "../infrastructure/config/app-config.ts";
import { type LocalLedger, createLocalLedger } from "../infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../infrastructure/ledger/rpc-ledger.ts";
import { redactText } from "../infrastructure/logging/redact.ts";
import { instrumentLedger } from "../infrastructure/metrics/instrumented-ledger.ts";
import { instrumentStore } from "../infrastructure/metrics/instrumented-store.ts";
import { type PrometheusMetrics, createPrometheusMetrics } from "../infrastructure/metrics/prometheus-metrics.ts";
import { type OpenedStore, openStore } from "../infrastructure/store/open-store.ts";
import type { WebhookEndpoint } from "../infrastructure/webhooks/webhooks-file.ts";
import { type WindowCounterFactory, windowCounterFactory } from "./window-counters-composition.ts";

/** How long start-up waits for the ledger's genesis hash before leaving the NETWORK check to recovery. */
const NETWORK_CHECK_DEADLINE_MS = 3_000;

/** Settings that cannot make a service: every problem, for main.ts to report before exiting. */
export function configurationError(problems: readonly string[]): CodedError<"CONFIGURATION_INVALID"> {
  return new CodedError("CONFIGURATION_INVALID", problems);
}

/** One Prometheus registry for this process, served by both interfaces. */
export function createServiceMetrics(): PrometheusMetrics {
  return createPrometheusMetrics({ processMetrics: true });
}

export type Ledgers = Readonly<{
  ledger: Ledger;
  /** Present when no SOLANA_RPC_URL is set. */
  embeddedLedger: LocalLedger | null;
  /** What the start-up check found; the reconciler's network guard starts from it. */
  ledgerNetwork: LedgerNetworkCheck;
}>;

/**
 * The ledger this process uses. Settlement records carry NETWORK and each reconciler touches only
 * its own network's records, so NETWORK must name this ledger: its genesis hash decides
 * (docs/settlement.md, several networks).
 */
export async function composeLedger(config: AppConfig, acceptedAssets: readonly Address[], metrics: PrometheusMetrics, logger: Logger): Promise<Ledgers> {
  const embeddedLedger = config.SOLANA_RPC_URL
    ? null
    : createLocalLedger({ logger: logger.child({ component: "ledger" }), programs: parseLedgerPrograms(config.LEDGER_PROGRAMS), mints: acceptedAssets });
  const ledger: Ledger = instrumentLedger(embeddedLedger ?? createRpcLedger({ url: config.SOLANA_RPC_URL ?? "", timeoutMs: config.LEDGER_RPC_TIMEOUT_MS, logger }), metrics);
  const ledgerNetwork = await checkLedgerNetwork(ledger, config.NETWORK, NETWORK_CHECK_DEADLINE_MS);
  if (ledgerNetwork.kind === "mismatch") throw configurationError([describeNetworkMismatch(config.NETWORK, ledgerNetwork)]);
  if (ledgerNetwork.kind === "unreachable") logger.warn("NETWORK not checked against the ledger: it did not answer; recovery waits until it does", { error: redactText(ledgerNetwork.error) });
  await seedSampleAgentsIfAsked(config, embeddedLedger, logger);
  return Object.freeze({ ledger, embeddedLedger, ledgerNetwork });
}

/** Development sample registry (SEED_SAMPLE_AGENTS): agents to browse and one to pay. Never on a real cluster. */
async function seedSampleAgentsIfAsked(config: AppConfig, embeddedLedger: LocalLedger | null, logger: Logger): Promise<void> {
  if (config.SEED_SAMPLE_AGENTS && !embeddedLedger) throw configurationError(["SEED_SAMPLE_AGENTS: sample agents are written only to the embedded ledger; unset it (or set false) when SOLANA_RPC_URL is set"]);
  if (!embeddedLedger || config.SEED_SAMPLE_AGENTS === false) return;
  const usdcMint = acceptedAssetsOf(config)[0] as Address;
  // Loaded only here: the seed data (about 300 lines of sample accounts) never enters a process
  // on a real ledger, which production always is (production-guard.ts refuses the embedded one).
  const { seedSampleAgents } = await import("../infrastructure/registry/sample-agents/seed-sample-agents.ts");
  // Kept in DATA_DIR between starts, under a key over everything they are built from.
  const cacheFile = join(config.DATA_DIR, "sample-agents.json");
  logger.info("seeded sample agents", await seedSampleAgents(embeddedLedger, { programId: config.REGISTRY_PROGRAM_ID as Address, usdcMint, cacheFile }));
}

export type Storage = Readonly<{ store: OpenedStore; counters: WindowCounterFactory }>;

/**
 * Starts opening the store, to be awaited where it is needed (composeStorage): PGlite compiles its
 * WebAssembly on the engine's threads (and PostgreSQL connects) while the ledger, the sample agents
 * and the signers are set up. Its failure is reported where it is awaited; until then it is not an
 * unhandled rejection.
 */
export function startOpeningStore(config: AppConfig, logger: Logger, webhooks: readonly WebhookEndpoint[]): Promise<OpenedStore> {
  const opening = openStore({
    webhooks,
    dataDir: config.DATA_DIR,
    maxConnections: config.DATABASE_POOL_MAX,
    migrate: config.MIGRATE_ON_BOOT,
    logger: logger.child({ component: "store" }),
    ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}),
  });
  opening.catch(() => undefined);
  return opening;
}

/** A boot that fails leaves the store closed (a PGlite directory stays locked while it is open). */
export async function closeOpeningStore(opening: Promise<OpenedStore>): Promise<void> {
  await opening.then((opened) => opened.close(), () => undefined).catch(() => undefined);
}

/** The settlement database and the window counters every shared limit uses (Redis or that database). */
export async function composeStorage(opening: Promise<OpenedStore>, config: AppConfig, metrics: PrometheusMetrics, logger: Logger): Promise<Storage> {
  const store = instrumentStore(await opening, metrics);
  const counters = windowCounterFactory(config, store.executor, { metrics, logger: logger.child({ component: "counters" }) });
  return Object.freeze({ store, counters });
}
