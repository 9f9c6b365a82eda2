// Two delivery workers (two replicas) over one real PostgreSQL database; one is a child process
// SIGKILLed while its deliveries hang at the receiver. Nothing is lost: the killed replica's leased
// events are sent again, under the same webhook-id, once the lease runs out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { type WebhookWorker, startWebhookWorker } from "../../src/application/webhooks/webhook-worker.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { createSqlWebhookOutbox } from "../../src/infrastructure/store/sql-webhook-outbox.ts";
import { createWebhookSender } from "../../src/infrastructure/webhooks/webhook-sender.ts";
import { type WebhookEndpoint, loadWebhooks } from "../../src/infrastructure/webhooks/webhooks-file.ts";
import { unusedPort } from "../support/ports.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { type Receiver, createReceiver, eventually, newSecret } from "./support/receiver.ts";

const gate = await postgresGate("tests/webhooks");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");
const LEASE_MS = 1_500;
const EVENTS = 12;

(gate.run ? describe : describe.skip)("webhook delivery across replicas (real PostgreSQL, a replica SIGKILLed mid-delivery)", () => {
  const database = useTestDatabase();
  let dir: string;
  let store: OpenedStore;
  let endpoints: readonly WebhookEndpoint[];
  let receiver: Receiver;
  let killed = false;
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let survivor: WebhookWorker | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "webhook-replicas-"));
    const secret = newSecret();
    // Every request that arrives before the kill hangs: the killed replica dies holding its leases.
    receiver = createReceiver(secret, await unusedPort(), () => (killed ? 200 : "hang"));
    receiver.start();
    writeFileSync(join(dir, "webhooks.json"), JSON.stringify([{ url: receiver.url, secret, events: ["settlement.confirmed"] }]));
    endpoints = await loadWebhooks(join(dir, "webhooks.json"), { production: false }, null);
    store = await openStore({ databaseUrl: database().url, webhooks: endpoints });
    for (let i = 0; i < EVENTS; i += 1) {
      const claim = draft();
      await store.settlements.claim(claim);
      await store.settlements.finish(claim.key, claim.signature, { state: "settled" });
    }
  }, 30_000);

  afterAll(async () => {
    child?.kill("SIGKILL");
    await survivor?.stop();
    await receiver.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("every event is delivered exactly once per webhook-id, the killed replica's ones under their original ids", async () => {
    child = Bun.spawn(["bun", "run", resolve(import.meta.dir, "support/worker-process.ts")], {
      env: { ...process.env, DATABASE_URL: database().url, WEBHOOKS_FILE: join(dir, "webhooks.json"), LEASE_MS: String(LEASE_MS), TIMEOUT_MS: "20000", RETRY_BASE_MS: "50" },
      stdout: "pipe",
      stderr: "inherit",
    });
    // The first requests can only come from the child: the second replica starts after them.
    await eventually(() => receiver.requests.length >= 1, 30_000, "the first replica's first delivery");
    survivor = startWebhookWorker({
      outbox: createSqlWebhookOutbox(store.executor),
      send: createWebhookSender(endpoints, { timeoutMs: 20_000 }),
      webhooks: endpoints.map((e) => e.id),
      logger: silentLogger,
      pollIntervalMs: 20,
      perWebhookInFlight: 4,
      leaseMs: LEASE_MS,
      retryBaseMs: 50,
    });
    // Both replicas hold leases (SKIP LOCKED: never the same row), all hanging at the receiver.
    await eventually(() => receiver.requests.length >= 8, 30_000, "both replicas delivering");
    const beforeKill = receiver.requests.map((r) => r.id);
    expect(new Set(beforeKill).size).toBe(beforeKill.length);

    child.kill("SIGKILL");
    await child.exited;
    killed = true;
    // The survivor's own hung requests are answered 503 and retried; the killed replica's wait for their lease.
    await receiver.stop();
    receiver.start();

    await eventually(() => receiver.accepted().length >= EVENTS, 30_000, "every event delivered after the kill");
    await Bun.sleep(LEASE_MS + 300);
    const accepted = receiver.accepted().map((r) => r.id);
    expect(accepted.length).toBe(EVENTS);
    expect(new Set(accepted).size).toBe(EVENTS);
    // Every id the killed replica (or the survivor) had in flight came back under the same id.
    for (const id of beforeKill) expect(accepted).toContain(id);
    expect(receiver.accepted().every((r) => r.verified)).toBe(true);
    const [left] = await store.executor.query("SELECT count(*)::integer AS n FROM webhook_outbox WHERE delivered_at IS NULL");
    expect(Number(left?.["n"])).toBe(0);
  }, 90_000);

  test("a replica whose lease ran out cannot reset or give up the event another replica claimed since", async () => {
    // The first test's surviving replica polls every 20 ms: left running, it raced this test's own
    // claims for the new event (one CI run saw it win, and this test's first claim found nothing).
    await survivor?.stop();
    survivor = null;
    const claim = draft();
    await store.settlements.claim(claim);
    await store.settlements.finish(claim.key, claim.signature, { state: "settled" });
    const outbox = createSqlWebhookOutbox(store.executor);
    const webhooks = endpoints.map((e) => e.id);
    const [stale] = await outbox.claim(webhooks, 1, 0);
    // A lease of 0: the event is due again at once, and the second replica claims it.
    const [current] = await outbox.claim(webhooks, 1, 60_000);
    expect(current?.id).toBe(stale?.id);
    expect(current?.attempts).toBe((stale?.attempts ?? 0) + 1);
    const id = String(stale?.id).slice("msg_".length);
    const leaseOf = async () => (await store.executor.query("SELECT next_attempt_at, given_up_at FROM webhook_outbox WHERE id = $1::bigint", [id]))[0];
    const leased = await leaseOf();

    // The first replica's late failure report changes nothing: the second keeps its lease.
    await outbox.retryLater(String(stale?.id), stale?.attempts ?? 0, 0, "late report");
    await outbox.giveUp(String(stale?.id), stale?.attempts ?? 0, "late report");
    expect(await leaseOf()).toEqual(leased);
    // The current holder's report applies.
    await outbox.giveUp(String(current?.id), current?.attempts ?? 0, "window over");
    expect((await leaseOf())?.["given_up_at"]).not.toBeNull();
  });
});
