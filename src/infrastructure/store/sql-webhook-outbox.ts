import { SETTLEMENT_EVENT_TYPES, type OutboxBacklog, type OutboxEvent, type SettlementEventType, type WebhookOutbox } from "../../application/ports/webhook-outbox.ts";
import { arrayLiteral } from "./sql-batch.ts";
import type { SqlExecutor, SqlRow } from "./sql-executor.ts";
import { settlementFromRow } from "./settlement-rows.ts";

// SKIP LOCKED: two replicas polling at once take different rows instead of queueing on each
// other; the lease (next_attempt_at moved past it) then keeps the row theirs until it ends, so
// a replica that dies mid-delivery hands the row back, under the same id, when its lease runs out.
// NOT EXISTS: a later event of a settlement waits until the earlier one, for the same webhook, is
// delivered or given up, so a receiver sees a settlement's events in the order they happened.
const CLAIM = `
  WITH due AS (
    SELECT o.id FROM webhook_outbox o
     WHERE o.webhook = ANY ($1::text[]) AND o.delivered_at IS NULL AND o.given_up_at IS NULL
       AND o.next_attempt_at <= now()
       AND NOT EXISTS (SELECT 1 FROM webhook_outbox e
                        WHERE e.webhook = o.webhook AND e.settlement_key = o.settlement_key AND e.id < o.id
                          AND e.delivered_at IS NULL AND e.given_up_at IS NULL)
     ORDER BY o.id
     LIMIT $2
     FOR UPDATE SKIP LOCKED)
  UPDATE webhook_outbox AS o
     SET next_attempt_at = now() + make_interval(secs => $3), attempts = o.attempts + 1
    FROM due
   WHERE o.id = due.id
  RETURNING o.id::text AS id, o.webhook, o.event_type, o.record, o.created_at, o.attempts`;

const DELIVERED = `UPDATE webhook_outbox SET delivered_at = now(), last_error = NULL WHERE id = $1::bigint`;
// `attempts = $n` fences a stale lease holder: once another replica claimed the event (and counted
// its attempt), a late failure report from the first must not reset that replica's lease (a
// duplicate send) or give up an event that is being delivered.
const RETRY_LATER = `UPDATE webhook_outbox SET next_attempt_at = now() + make_interval(secs => $3), last_error = $4 WHERE id = $1::bigint AND attempts = $2 AND delivered_at IS NULL`;
const GIVE_UP = `UPDATE webhook_outbox SET given_up_at = now(), last_error = $3 WHERE id = $1::bigint AND attempts = $2 AND delivered_at IS NULL`;
const BACKLOG = `
  SELECT count(*)::integer AS undelivered, min(created_at) AS oldest FROM webhook_outbox
   WHERE webhook = ANY ($1::text[]) AND delivered_at IS NULL AND given_up_at IS NULL`;

/** The WebhookOutbox port over PostgreSQL or PGlite (the table the settlement store writes events into). */
export function createSqlWebhookOutbox(db: SqlExecutor): WebhookOutbox {
  return Object.freeze({
    async claim(webhooks: readonly string[], limit: number, leaseMs: number): Promise<readonly OutboxEvent[]> {
      if (webhooks.length === 0 || limit <= 0) return [];
      const rows = await db.query(CLAIM, [arrayLiteral([...webhooks]), limit, leaseMs / 1000]);
      // One statement updates rows in no particular order; delivery goes oldest first.
      return rows.map(eventOf).sort((a, b) => Number(BigInt(a.id.slice(4)) - BigInt(b.id.slice(4))));
    },
    async delivered(id: string): Promise<void> {
      await db.query(DELIVERED, [rowIdOf(id)]);
    },
    async retryLater(id: string, attempts: number, delayMs: number, error: string): Promise<void> {
      await db.query(RETRY_LATER, [rowIdOf(id), attempts, delayMs / 1000, error]);
    },
    async giveUp(id: string, attempts: number, error: string): Promise<void> {
      await db.query(GIVE_UP, [rowIdOf(id), attempts, error]);
    },
    async backlog(webhooks: readonly string[]): Promise<OutboxBacklog> {
      if (webhooks.length === 0) return { undelivered: 0, oldestCreatedAt: null };
      const [row] = await db.query(BACKLOG, [arrayLiteral([...webhooks])]);
      const oldest = row?.["oldest"];
      return Object.freeze({
        undelivered: Number(row?.["undelivered"] ?? 0),
        oldestCreatedAt: oldest === null || oldest === undefined ? null : new Date(oldest as string | Date),
      });
    },
  });
}

/** The Standard Webhooks message id of a row: stable, so every attempt carries the same `webhook-id`. */
const MESSAGE_ID_PREFIX = "msg_";

function rowIdOf(id: string): string {
  if (!id.startsWith(MESSAGE_ID_PREFIX) || !/^\d+$/.test(id.slice(MESSAGE_ID_PREFIX.length))) throw new RangeError("not an outbox event id");
  return id.slice(MESSAGE_ID_PREFIX.length);
}

function eventOf(row: SqlRow): OutboxEvent {
  const type = SETTLEMENT_EVENT_TYPES.find((t) => t === row["event_type"]);
  if (type === undefined) throw new Error("webhook_outbox.event_type is not a settlement event");
  const created = row["created_at"];
  return Object.freeze({
    id: `${MESSAGE_ID_PREFIX}${String(row["id"])}`,
    webhook: String(row["webhook"]),
    type: type as SettlementEventType,
    record: settlementFromRow(JSON.parse(String(row["record"])) as SqlRow),
    createdAt: created instanceof Date ? created : new Date(String(created)),
    attempts: Number(row["attempts"]),
  });
}
