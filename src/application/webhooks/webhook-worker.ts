import { type Clock, systemClock } from "../ports/clock.ts";
import type { Logger } from "../ports/logger.ts";
import type { OutboxBacklog, OutboxEvent, SettlementEventType, WebhookOutbox } from "../ports/webhook-outbox.ts";
import { settlementView } from "../settlement/settlement-view.ts";

/** One signed POST as the receiver gets it; `body` is what is signed and sent, byte for byte. */
export type WebhookMessage = Readonly<{ id: string; type: SettlementEventType; timestamp: Date; body: string }>;

/** What one attempt came to: a 2xx, or why not (status, timeout, refused address, connection error). */
export type DeliveryAttempt = Readonly<{ ok: true } | { ok: false; error: string }>;

/** Signs and POSTs one message to one webhook (by id); never throws for the receiver's failures. */
export type WebhookSender = (webhook: string, message: WebhookMessage) => Promise<DeliveryAttempt>;

export type DeliveryOutcome = "delivered" | "retry" | "given_up";

export type WebhookWorkerOptions = Readonly<{
  outbox: WebhookOutbox;
  send: WebhookSender;
  /** The configured webhooks' ids: only their events are claimed. */
  webhooks: readonly string[];
  logger: Logger;
  clock?: Clock;
  /** Pause between claims when there was nothing to do. */
  pollIntervalMs?: number;
  /** Deliveries in flight per webhook: a receiver that hangs holds only its own slots. */
  perWebhookInFlight?: number;
  /** How long a claimed event stays this replica's; must exceed the sender's timeout. */
  leaseMs: number;
  /** First retry delay; each further one doubles, up to `retryMaxDelayMs`. */
  retryBaseMs?: number;
  retryMaxDelayMs?: number;
  /** No attempt is made once an event is this old (Standard Webhooks practice: a day). */
  retryWindowMs?: number;
  onDelivery?: (type: SettlementEventType, outcome: DeliveryOutcome) => void;
  /** How often the backlog (queue depth, oldest undelivered) is read for the metrics. */
  backlogIntervalMs?: number;
}>;

export type WebhookWorker = Readonly<{
  /** The backlog as last read (for the gauges); null before the first read. */
  backlog(): OutboxBacklog | null;
  /** Stops claiming and waits for deliveries in flight (bounded by the sender's timeout). */
  stop(): Promise<void>;
}>;

export const WEBHOOK_DEFAULTS = Object.freeze({
  pollIntervalMs: 1_000,
  perWebhookInFlight: 16,
  retryBaseMs: 5_000,
  retryMaxDelayMs: 3_600_000,
  retryWindowMs: 24 * 3_600_000,
  backlogIntervalMs: 15_000,
});

/**
 * Delivers the outbox's events: at least once (an event is marked delivered only after a 2xx; a
 * replica that dies mid-delivery leaves the lease to run out and another replica sends it again
 * under the same id), in order per settlement and webhook (the outbox holds back later events),
 * with exponential backoff for a receiver that fails or hangs, each webhook in its own slots so one
 * bad receiver delays no other. A store outage pauses claiming; nothing is lost, the rows wait.
 */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const o = { ...WEBHOOK_DEFAULTS, ...options };
  const clock = options.clock ?? systemClock;
  const log = options.logger.child({ component: "webhooks" });
  const inFlight = new Map<string, number>(options.webhooks.map((id) => [id, 0]));
  const running = new Set<Promise<void>>();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking: Promise<void> = Promise.resolve();
  let inTick = false;
  // A slot freed while a claim was running: claim again as soon as it ends.
  let again = false;
  let lastBacklog: OutboxBacklog | null = null;
  let backlogReadAt = Number.NEGATIVE_INFINITY;

  async function tick(): Promise<void> {
    inTick = true;
    again = false;
    let claimed = 0;
    for (const webhook of options.webhooks) {
      const free = o.perWebhookInFlight - (inFlight.get(webhook) ?? 0);
      if (stopped || free <= 0) continue;
      try {
        const events = await options.outbox.claim([webhook], free, o.leaseMs);
        claimed += events.length;
        for (const event of events) track(webhook, deliver(event));
      } catch (error) {
        log.warn("webhook events not claimed; retrying", { error });
      }
    }
    if (clock.now() - backlogReadAt >= o.backlogIntervalMs) await readBacklog();
    inTick = false;
    // More may be waiting: claim again at once while events keep coming.
    schedule(claimed > 0 || again ? 0 : o.pollIntervalMs);
  }

  /** A delivery ended, so a slot is free: claim now rather than at the next poll. */
  function wake(): void {
    if (stopped) return;
    if (inTick) again = true;
    else {
      clearTimeout(timer);
      schedule(0);
    }
  }

  function track(webhook: string, delivery: Promise<void>): void {
    inFlight.set(webhook, (inFlight.get(webhook) ?? 0) + 1);
    const done = delivery.finally(() => {
      inFlight.set(webhook, (inFlight.get(webhook) ?? 1) - 1);
      running.delete(done);
      wake();
    });
    running.add(done);
  }

  async function deliver(event: OutboxEvent): Promise<void> {
    const message: WebhookMessage = {
      id: event.id,
      type: event.type,
      timestamp: new Date(clock.now()),
      body: JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: settlementView(event.record) }),
    };
    // A sender that throws (a bug, not a receiver's failure) is one more failed attempt: the
    // event is kept and retried, and the worker goes on.
    const attempt: DeliveryAttempt = await options.send(event.webhook, message).catch((error: unknown) => {
      log.error("webhook sender failed", { id: event.id, error });
      return { ok: false, error: "the delivery failed unexpectedly" };
    });
    try {
      if (attempt.ok) {
        await options.outbox.delivered(event.id);
        options.onDelivery?.(event.type, "delivered");
        return;
      }
      const delay = Math.min(o.retryBaseMs * 2 ** Math.min(event.attempts - 1, 30), o.retryMaxDelayMs);
      const age = clock.now() - event.createdAt.getTime();
      if (age + delay > o.retryWindowMs) {
        await options.outbox.giveUp(event.id, event.attempts, attempt.error);
        options.onDelivery?.(event.type, "given_up");
        log.warn("webhook event given up after its retry window", { id: event.id, webhook: event.webhook, type: event.type, attempts: event.attempts, error: attempt.error });
        return;
      }
      await options.outbox.retryLater(event.id, event.attempts, delay, attempt.error);
      options.onDelivery?.(event.type, "retry");
      log.info("webhook delivery failed; retrying later", { id: event.id, webhook: event.webhook, attempts: event.attempts, delayMs: delay, error: attempt.error });
    } catch (error) {
      // The lease runs out and the event is sent again: at least once, never lost.
      log.warn("webhook delivery not recorded; the event will be sent again", { id: event.id, error });
    }
  }

  async function readBacklog(): Promise<void> {
    backlogReadAt = clock.now();
    try {
      lastBacklog = await options.outbox.backlog(options.webhooks);
    } catch (error) {
      log.warn("webhook backlog not read", { error });
    }
  }

  function schedule(ms: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      ticking = tick();
    }, ms);
    // A background loop must never keep the process alive on its own (Node and Bun; Deno has no unref).
    if (typeof timer === "object") (timer as { unref?: () => void }).unref?.();
  }

  schedule(0);
  return Object.freeze({
    backlog: () => lastBacklog,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...running]);
    },
  });
}
