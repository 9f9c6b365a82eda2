/**
 * The Bazaar discovery catalogue's wiring (docs/discovery.md): the store's table, the recorder the
 * verify and settle routes tell after answering, the catalogue the discovery routes read (joined
 * to the registry's index), and the loop that deletes expired entries.
 */
import { createDiscoveryCatalogue, type DiscoveryCatalogue } from "../application/discovery/discovery-catalogue.ts";
import { createDiscoveryRecorder, type DiscoveryRecorder } from "../application/discovery/discovery-recorder.ts";
import { createRegistryJoin } from "../application/discovery/registry-join.ts";
import type { AgentIndex } from "../application/ports/agent-index.ts";
import { systemClock, systemRepeater } from "../application/ports/clock.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { Metrics } from "../application/ports/metrics.ts";
import type { CategoryCatalog } from "../domain/registry/categories.ts";
import type { AppConfig } from "../infrastructure/config/app-config.ts";
import { createSqlDiscoveryStore } from "../infrastructure/store/sql-discovery-store.ts";
import type { OpenedStore } from "../infrastructure/store/index.ts";

export type Discovery = Readonly<{
  catalogue: DiscoveryCatalogue;
  recorder: DiscoveryRecorder;
  stop(): void;
}>;

export type DiscoveryWiring = Readonly<{
  config: AppConfig;
  store: OpenedStore;
  index: AgentIndex;
  categories: CategoryCatalog;
  metrics: Metrics;
  logger: Logger;
}>;

/** Null when DISCOVERY_ENABLED=false: no routes, nothing recorded. */
export function composeDiscovery(wiring: DiscoveryWiring): Discovery | null {
  const { config, store, index, categories, metrics } = wiring;
  if (!config.DISCOVERY_ENABLED) return null;
  const logger = wiring.logger.child({ component: "discovery" });
  const discoveryStore = createSqlDiscoveryStore(store.executor);
  const recorder = createDiscoveryRecorder({
    // Imported at the first declaration: @x402/extensions costs ~200 ms of start-up otherwise.
    read: () => import("../infrastructure/discovery/bazaar-declarations.ts").then((module) => module.createBazaarDeclarationReader()),
    store: discoveryStore,
    limits: { ttlSeconds: config.DISCOVERY_TTL_SECONDS, maxEntriesPerPayTo: config.DISCOVERY_MAX_ENTRIES_PER_PAY_TO, maxEntryBytes: config.DISCOVERY_MAX_ENTRY_BYTES },
    logger,
    count: (outcome) => metrics.increment("x402_discovery_declarations_total", "Bazaar declarations seen in verify and settle requests, by what became of them", { outcome }),
  });
  const catalogue = createDiscoveryCatalogue({ store: discoveryStore, join: createRegistryJoin({ index, categories, clock: systemClock }) });
  // Expired entries are already hidden by every read; this only keeps the table small.
  const sweepMs = Math.min(config.DISCOVERY_TTL_SECONDS * 1000, 600_000);
  const stop = systemRepeater(sweepMs, () => {
    discoveryStore.deleteExpired().then(
      (deleted) => (deleted > 0 ? logger.info("expired discovery entries deleted", { deleted }) : undefined),
      (error: unknown) => logger.warn("could not delete expired discovery entries", { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  return Object.freeze({ catalogue, recorder, stop });
}
