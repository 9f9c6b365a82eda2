/**
 * The service, as a table of contents: each step is wired in its own file of this folder
 * (shared-composition: metrics, ledger, store, counters; fee-payers-composition; registry-composition;
 * facilitator-composition). Reads nothing from the process itself: `config` and `env` come from
 * main.ts, so tests build the same service with their own settings.
 */
import type { Address } from "@solana/kit";
import pkg from "../../package.json" with { type: "json" };
import { systemClock } from "../application/ports/clock.ts";
import type { Ledger } from "../application/ports/ledger.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { MetadataFetcher } from "../application/ports/metadata-fetcher.ts";
import type { SettlementService } from "../application/settlement/settle-payment.ts";
import type { SignerPool } from "../application/signer-pool.ts";
import { createAdminFetch } from "../http/admin-app.ts";
import type { ClientAddresses } from "../http/client-address.ts";
import { createFacilitatorApp } from "../http/facilitator-app.ts";
import { createRegistryApp } from "../http/registry-app.ts";
import { acceptedAssetsOf, adminPortOf } from "../infrastructure/config/app-config.ts";
import type { ServiceConfig } from "../infrastructure/config/service-config.ts";
import { type LocalLedger, serveLocalLedgerRpc } from "../infrastructure/ledger/local-ledger.ts";
import { enterLogContext } from "../infrastructure/logging/log-context.ts";
import { registryIndexGauges, signerHealthGauge } from "../infrastructure/metrics/service-gauges.ts";
import type { LiveAgentIndex } from "../infrastructure/registry/ledger-agent-index.ts";
import type { OpenedStore } from "../infrastructure/store/open-store.ts";
import { createCategoryCatalog } from "../domain/registry/categories.ts";
import { loadCategoryNames } from "../infrastructure/registry/categories-file.ts";
import { type Discovery, composeDiscovery } from "./discovery-composition.ts";
import { composeFacilitator, protocolFeeOf, startReconciler } from "./facilitator-composition.ts";
import { createFeePayerProtection } from "./fee-payer-protection.ts";
import { composeFeePayers } from "./fee-payers-composition.ts";
import { composeRegistry, composeRegistryIndex } from "./registry-composition.ts";
import { closeOpeningStore, composeLedger, configurationError, composeStorage, createServiceMetrics, startOpeningStore } from "./shared-composition.ts";
import { startWebhookDelivery } from "./webhooks-composition.ts";
import { type WebhookEndpoint, loadConfiguredWebhooks } from "../infrastructure/webhooks/webhooks-file.ts";
import { loadConfiguredApiKeys } from "../infrastructure/config/policy-files.ts";
import type { ApiKeyHashes } from "../http/facilitator/api-key-guard.ts";

export const VERSION: string = pkg.version;

type Env = Readonly<Record<string, string | undefined>>;

export type Service = Readonly<{
  config: ServiceConfig;
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
  /** The Bazaar catalogue; null when DISCOVERY_ENABLED=false or ROLE=registry. */
  discovery: Discovery | null;
  /** Finishes in-flight settlements (bounded), then releases every resource. */
  close(graceMs?: number): Promise<void>;
}>;

/** Adapters a test may replace: only those that need what cannot run here (the public network). */
export type ServiceAdapters = Readonly<{ metadataFetcher?: MetadataFetcher }>;

/** `env` is only where signers read the secrets their settings name (config.signers holds references). */
export async function buildService(config: ServiceConfig, env: Env, logger: Logger, adapters: ServiceAdapters = {}): Promise<Service> {
  // Read once: the guard and the webhooks' `apiKey` check must see the same keys.
  const apiKeys = await loadConfiguredApiKeys(config);
  // Signed webhooks (docs/settlement.md#webhooks): the store writes each event with its state change.
  const webhooks = await loadConfiguredWebhooks(config, apiKeys).catch((error: Error) => {
    throw configurationError([error.message]);
  });
  // Opened first and awaited where it is needed (shared-composition.ts).
  const opening = startOpeningStore(config, logger, webhooks);
  try {
    return await composeService(config, env, logger, adapters, opening, { webhooks, apiKeys });
  } catch (error) {
    // So the same process can boot again on the same DATA_DIR once the setting is fixed.
    await closeOpeningStore(opening);
    throw error;
  }
}

async function composeService(
  config: ServiceConfig,
  env: Env,
  logger: Logger,
  adapters: ServiceAdapters,
  opening: Promise<OpenedStore>,
  files: Readonly<{ webhooks: readonly WebhookEndpoint[]; apiKeys: ApiKeyHashes | null }>,
): Promise<Service> {
  const { webhooks } = files;
  // USDC_MINT (checked as base58 by the config schema) or the network's defaults.
  const acceptedAssets = acceptedAssetsOf(config) as readonly Address[];
  const protocolFee = protocolFeeOf(config);
  const metrics = createServiceMetrics();
  const ledgers = await composeLedger(config, acceptedAssets, metrics, logger);
  const { ledger, embeddedLedger } = ledgers;
  const feePayers = await composeFeePayers(config, env, embeddedLedger, metrics, logger);
  const storage = await composeStorage(opening, config, metrics, logger);
  const { store, counters } = storage;
  const registryIndex = composeRegistryIndex(config, ledgers, store, logger);
  const index = registryIndex.index;
  const protection = await createFeePayerProtection(config, { index, counters, clock: systemClock, apiKeys: files.apiKeys });

  // SECURITY: /metrics (the fee payers' balances and spend), /openapi and /docs move to ADMIN_PORT in
  // production; the public apps then do not register them (src/http/operations-surface.ts).
  const publicSurface = config.NODE_ENV === "production" ? "omit" : "serve";
  const categories = createCategoryCatalog(await loadCategoryNames(config.REGISTRY_CATEGORIES_FILE ?? null));
  // The Bazaar catalogue (docs/discovery.md); a registry-only process serves no facilitator routes.
  const discovery = config.ROLE === "registry" ? null : composeDiscovery({ config, store, index, categories, metrics, logger });
  const { settlement, facilitatorDeps } = composeFacilitator({ config, acceptedAssets, protocolFee, ledger, store, feePayers, protection, counters, metrics, enterLogContext, logger, version: VERSION, discovery });
  const facilitatorApp = createFacilitatorApp(facilitatorDeps, publicSurface);

  const registry = await composeRegistry({ config, env, ledgers, storage, index, categories, facilitator: feePayers.addresses[0], metrics, enterLogContext, logger, version: VERSION, metadataFetcher: adapters.metadataFetcher });
  const { registryDeps, registration, clientAddresses } = registry;
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

  const webhookDelivery = startWebhookDelivery(config, config.ROLE === "registry" ? [] : webhooks, { executor: store.executor, metrics, logger });
  const reconcile = startReconciler({ config, ledger, settlements: store.settlements, ledgerNetwork: ledgers.ledgerNetwork, protection, metrics, logger });

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
    discovery,
    close: async (graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000) => {
      reconcile.stop();
      discovery?.stop();
      if (settlement) await Promise.race([settlement.drain(), new Promise((r) => setTimeout(r, graceMs))]);
      await webhookDelivery?.stop();
      await feePayers.close();
      await registration.close();
      await counters.close();
      await discovery?.recorder.idle();
      await registryIndex.close();
      await store.close();
    },
  });
}

export { serveLocalLedgerRpc };
