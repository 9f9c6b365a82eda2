import type { WebhookSubscription } from "../../application/ports/webhook-outbox.ts";
import { arrayLiteral } from "./sql-batch.ts";
import type { SqlParam } from "./sql-executor.ts";

/**
 * A state change with its webhook events: `change` is an UPDATE whose RETURNING names the
 * settlement columns and an `event_type`; the events are inserted by the same statement (a
 * data-modifying CTE), so they commit exactly when the change does and cost no round trip.
 * Each changed record gets one row per subscribed webhook: one whose events include the type and
 * which is either bound to no API key or to the key that submitted the record. `record` is the
 * changed row as JSON, read back with the store's own row reader. The statement returns the
 * change's rows. Parameters `$first..$first+2` are the subscriptions (subscriptionParams).
 */
export function withEvents(change: string, first: number): string {
  return `
WITH changed AS (${change}),
outbox AS (
  INSERT INTO webhook_outbox (webhook, settlement_key, event_type, record)
  SELECT w.webhook, c.key, c.event_type, row_to_json(c)::text
    FROM changed c
    JOIN unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[]) AS w(webhook, events, api_key)
      ON c.event_type = ANY (string_to_array(w.events, ','))
     AND (w.api_key IS NULL OR w.api_key = c.api_key)
   ORDER BY c.key, w.webhook
)
SELECT * FROM changed`;
}

/** The subscriptions as the three array parameters withEvents reads. */
export function subscriptionParams(webhooks: readonly WebhookSubscription[]): readonly SqlParam[] {
  return [
    arrayLiteral(webhooks.map((w) => w.id)),
    arrayLiteral(webhooks.map((w) => w.events.join(","))),
    arrayLiteral(webhooks.map((w) => w.apiKey)),
  ];
}
