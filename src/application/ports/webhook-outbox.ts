import type { SettlementRecord } from "./settlement-store.ts";

/** The settlement events a webhook may subscribe to (docs/settlement.md#webhooks). */
export const SETTLEMENT_EVENT_TYPES = ["settlement.confirmed", "settlement.failed", "settlement.pending", "settlement.corrected"] as const;
export type SettlementEventType = (typeof SETTLEMENT_EVENT_TYPES)[number];

/**
 * One webhook as the store sees it when it writes events: which events it takes and, when it is
 * bound to an API key, whose settlements. The URL and secret stay with the delivery worker.
 */
export type WebhookSubscription = Readonly<{
  /** Stable across restarts (derived from the URL and key), so undelivered rows keep their webhook. */
  id: string;
  events: readonly SettlementEventType[];
  /** The API key's name; null: every settlement. */
  apiKey: string | null;
}>;

/** One undelivered event for one webhook, leased to the caller until its lease ends. */
export type OutboxEvent = Readonly<{
  /** The Standard Webhooks message id (`webhook-id`): the same on every delivery attempt. */
  id: string;
  webhook: string;
  type: SettlementEventType;
  /** The record as the statement that wrote the event left it. */
  record: SettlementRecord;
  createdAt: Date;
  /** Attempts so far, this one included. */
  attempts: number;
}>;

export type OutboxBacklog = Readonly<{ undelivered: number; oldestCreatedAt: Date | null }>;

/**
 * The transactional outbox the settlement store writes into (the event row is inserted by the
 * statement that changes the record). Claims are safe across replicas: a row is leased by one
 * claimer at a time (FOR UPDATE SKIP LOCKED, then a lease), and an earlier undelivered event of the
 * same settlement for the same webhook holds back the later ones, so each receiver sees a
 * settlement's events in order. Every method may throw a CodedError "STORE_UNAVAILABLE".
 */
export type WebhookOutbox = Readonly<{
  /** Leases up to `limit` due events of these webhooks for `leaseMs`, oldest first. */
  claim(webhooks: readonly string[], limit: number, leaseMs: number): Promise<readonly OutboxEvent[]>;
  delivered(id: string): Promise<void>;
  /**
   * Leaves the event for another attempt after `delayMs`, keeping why this one failed. Only while
   * `attempts` is still the event's count: a replica whose lease ran out (and another claimed the
   * event since) changes nothing.
   */
  retryLater(id: string, attempts: number, delayMs: number, error: string): Promise<void>;
  /** No more attempts (its retry window is over); like retryLater, only for the current attempt. */
  giveUp(id: string, attempts: number, error: string): Promise<void>;
  /** Undelivered events of these webhooks, for the queue metrics. */
  backlog(webhooks: readonly string[]): Promise<OutboxBacklog>;
}>;
