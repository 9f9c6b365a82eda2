/**
 * One replica's webhook delivery worker as its own process (so a test can SIGKILL it mid-delivery):
 * the production pieces (WEBHOOKS_FILE parser, SQL outbox on PostgreSQL, signed sender, worker).
 * Env: DATABASE_URL, WEBHOOKS_FILE, LEASE_MS, TIMEOUT_MS, RETRY_BASE_MS. Prints "ready" once polling.
 */
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { startWebhookWorker } from "../../../src/application/webhooks/webhook-worker.ts";
import { createPostgresExecutor } from "../../../src/infrastructure/store/postgres-executor.ts";
import { createSqlWebhookOutbox } from "../../../src/infrastructure/store/sql-webhook-outbox.ts";
import { createWebhookSender } from "../../../src/infrastructure/webhooks/webhook-sender.ts";
import { loadWebhooks } from "../../../src/infrastructure/webhooks/webhooks-file.ts";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const endpoints = await loadWebhooks(env("WEBHOOKS_FILE"), { production: false }, null);
const executor = createPostgresExecutor({ databaseUrl: env("DATABASE_URL") });
startWebhookWorker({
  outbox: createSqlWebhookOutbox(executor),
  send: createWebhookSender(endpoints, { timeoutMs: Number(env("TIMEOUT_MS")) }),
  webhooks: endpoints.map((e) => e.id),
  logger: silentLogger,
  pollIntervalMs: 20,
  // Four slots each, so the twelve events are split between the two replicas.
  perWebhookInFlight: 4,
  leaseMs: Number(env("LEASE_MS")),
  retryBaseMs: Number(env("RETRY_BASE_MS")),
});
console.log("ready");
// Keeps running until killed (the worker's timers do not hold the process).
setInterval(() => {}, 1 << 30);
