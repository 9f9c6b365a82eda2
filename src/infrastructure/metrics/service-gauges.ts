import type { RegistryIndexHealth } from "../../application/ports/agent-index.ts";
import type { Metrics } from "../../application/ports/metrics.ts";
import type { SignerHealth } from "../../application/signer-pool.ts";

export const REGISTRY_INDEX_AGE = "x402_registry_index_age_seconds";
export const REGISTRY_INDEX_HEALTHY = "x402_registry_index_healthy";
export const REGISTRY_FEED_LIVE = "x402_registry_feed_live";
export const REGISTRY_AGENTS = "x402_registry_agents";
export const SIGNER_HEALTHY = "x402_signer_healthy";

/**
 * The registry read model, read at each scrape: seconds since its last successful refresh (no
 * sample before the first), whether its latest refresh succeeded, and how many agents it holds.
 * The index refreshes when read after its TTL, so a large age on an idle registry is normal;
 * `healthy == 0` means the last refresh failed and stale data is being served.
 */
export function registryIndexGauges(metrics: Metrics, health: () => RegistryIndexHealth, now: () => number): void {
  metrics.gaugeFrom(REGISTRY_INDEX_AGE, "Seconds since the registry index last read every account from the ledger (between full reads, pushed writes keep it current)", [], () => {
    const at = health().lastRefreshAt;
    return at === null ? [] : [{ labels: {}, value: Math.max(0, (now() - Date.parse(at)) / 1000) }];
  });
  metrics.gaugeFrom(REGISTRY_INDEX_HEALTHY, "1 when the registry index's latest refresh succeeded, 0 while it serves stale data", [], () => [
    { labels: {}, value: health().status === "ok" ? 1 : 0 },
  ]);
  metrics.gaugeFrom(REGISTRY_AGENTS, "Agents in the registry index", [], () => [{ labels: {}, value: health().agentCount }]);
  metrics.gaugeFrom(REGISTRY_FEED_LIVE, "1 while the registry index follows the ledger's writes (programSubscribe), 0 while it polls every TTL", [], () => [
    { labels: {}, value: health().feed === "live" ? 1 : 0 },
  ]);
}

/** Each fee payer's signer: 1 while the pool counts it healthy, 0 after repeated failures (until its cool-down ends). */
export function signerHealthGauge(metrics: Metrics, health: () => readonly SignerHealth[]): void {
  metrics.gaugeFrom(SIGNER_HEALTHY, "1 while a fee payer's signer is healthy, 0 after consecutive failures", ["fee_payer", "adapter"], () =>
    health().map((h) => ({ labels: { fee_payer: h.address, adapter: h.kind }, value: h.healthy ? 1 : 0 })),
  );
}
