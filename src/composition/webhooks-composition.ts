/**
 * Signed settlement webhooks (docs/settlement.md#webhooks): WEBHOOKS_FILE read at boot (every
 * problem listed, naming entry and field), the subscriptions handed to the settlement store (which
 * writes each event with its state change), and the delivery worker with its metrics.
 */
import type { Logger } from "../application/ports/logger.ts";
import type { Metrics } from "../application/ports/metrics.ts";
import { systemClock } from "../application/ports/clock.ts";
import { type WebhookWorker, startWebhookWorker } from "../application/webhooks/webhook-worker.ts";
import type { AppConfig } from "../infrastructure/config/app-config.ts";
import type { SqlExecutor } from "../infrastructure/store/sql-executor.ts";
import { createSqlWebhookOutbox } from "../infrastructure/store/sql-webhook-outbox.ts";
import { createWebhookSender } from "../infrastructure/webhooks/webhook-sender.ts";
import type { WebhookEndpoint } from "../infrastructure/webhooks/webhooks-file.ts";

const DELIVERIES = "x402_webhook_deliveries_total";
const DELIVERIES_HELP = "Webhook delivery attempts, by event and outcome (delivered, retry, given_up)";

/** Room above the receiver timeout before a claimed event's lease runs out and another replica may send it. */
const LEASE_MARGIN_MS = 30_000;

/** The delivery worker over the store's outbox, with its metrics; null without webhooks. */
export function startWebhookDelivery(
  config: AppConfig,
  endpoints: readonly WebhookEndpoint[],
  deps: Readonly<{ executor: SqlExecutor; metrics: Metrics; logger: Logger }>,
): WebhookWorker | null {
  const { metrics } = deps;
  let worker: WebhookWorker | null = null;
  // Exposed (as zero) without webhooks too, so dashboards and alert rules always find them.
  metrics.increment(DELIVERIES, DELIVERIES_HELP, { event: "settlement.confirmed", outcome: "delivered" }, 0);
  metrics.gaugeFrom("x402_webhook_queue_depth", "Webhook events not yet delivered (nor given up), all replicas", [], () => [{ labels: {}, value: worker?.backlog()?.undelivered ?? 0 }]);
  metrics.gaugeFrom("x402_webhook_oldest_undelivered_age_seconds", "Age of the oldest webhook event not yet delivered; 0 when none", [], () => {
    const oldest = worker?.backlog()?.oldestCreatedAt ?? null;
    return [{ labels: {}, value: oldest === null ? 0 : Math.max(0, (systemClock.now() - oldest.getTime()) / 1000) }];
  });
  if (endpoints.length === 0) return null;
  worker = startWebhookWorker({
    outbox: createSqlWebhookOutbox(deps.executor),
    send: createWebhookSender(endpoints, { timeoutMs: config.WEBHOOK_TIMEOUT_MS }),
    webhooks: endpoints.map((endpoint) => endpoint.id),
    logger: deps.logger,
    clock: systemClock,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    leaseMs: config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
    onDelivery: (event, outcome) => metrics.increment(DELIVERIES, DELIVERIES_HELP, { event, outcome }),
  });
  return worker;
}
