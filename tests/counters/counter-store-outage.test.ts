// The shared window counters when their store fails: a Redis server of the test's own stopped
// (SIGTERM, SIGKILL) and started again, a raw socket that accepts and never answers (the "black
// hole" that hung /settle, /auth/challenge and /agents/register for more than 40 s), and
// PostgreSQL behind a TCP proxy that is cut. Every call must end within a bound, in
// COUNTERS_UNAVAILABLE with a message that names no host, port or database, and work again once
// the store is back, without a new client.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { LogFields, Logger } from "../../src/application/ports/logger.ts";
import { type CodedError, isCoded } from "../../src/domain/coded-error.ts";
import { type RedisCounterStore, createRedisCounterStore } from "../../src/infrastructure/counters/redis-window-counters.ts";
import { createPrometheusMetrics } from "../../src/infrastructure/metrics/prometheus-metrics.ts";
import { openStore } from "../../src/infrastructure/store/index.ts";
import { createSqlWindowCounters } from "../../src/infrastructure/store/sql-window-counters.ts";
import { windowCounterFactory } from "../../src/composition/window-counters-composition.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { ADMIN_URL, createTestDatabase, postgresGate } from "../support/postgres.ts";
import { type OwnRedis, redisServerGate, startOwnRedis } from "../support/redis-server.ts";
import { type BlackHole, startBlackHole, startTcpProxy } from "../support/tcp-faults.ts";

const COMMAND_TIMEOUT_MS = 300;
/** The command timeout, plus what a loaded two-core machine adds. */
const BOUND_MS = 1_000;

/** What a call ended in, and how long it took. */
async function outcome(work: () => Promise<unknown>): Promise<Readonly<{ ms: number; error: unknown }>> {
  const started = performance.now();
  try {
    await work();
    return { ms: performance.now() - started, error: null };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

function expectUnavailable(result: Readonly<{ ms: number; error: unknown }>, reason?: string): void {
  expect(isCoded(result.error, "COUNTERS_UNAVAILABLE")).toBe(true);
  const message = (result.error as CodedError).message;
  expect(message).toStartWith("the shared counters are unavailable (");
  if (reason) expect(message).toContain(reason);
  // SECURITY: the message reaches clients (503); the client library's own text names the target.
  expect(message).not.toMatch(/127\.0\.0\.1|localhost|:\d{2,5}\b|redis:\/\//);
  expect(result.ms).toBeLessThan(BOUND_MS);
}

const own = redisServerGate("tests/counters");
failWhenRequired(own, "redis-server must be installed in CI");

(own.run ? describe : describe.skip)("Redis counters, the test's own redis-server stopped and started (real server, real client)", () => {
  let redis: OwnRedis;
  let store: RedisCounterStore;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });
  afterEach(async () => {
    await store?.close();
    await redis.start();
  });
  const open = () => (store = createRedisCounterStore({ url: redis.url, connectTimeoutMs: 300, commandTimeoutMs: COMMAND_TIMEOUT_MS }));
  const scope = () => `s-${crypto.randomUUID()}`;

  test("stopped with SIGTERM: add, subtract and ping each end in COUNTERS_UNAVAILABLE within the bound", async () => {
    const counters = open().counters("test", 60);
    const a = scope();
    expect(await counters.add(1, [a], 5n)).toEqual([5n]);
    await redis.stop("SIGTERM");
    expectUnavailable(await outcome(() => counters.add(1, [a], 5n)));
    expectUnavailable(await outcome(() => counters.subtract(1, [a], 5n)));
    expectUnavailable(await outcome(() => store.ping()));
  });

  test("killed with SIGKILL under 50 concurrent adds: every one ends within the bound; started again on the same port, the same client counts again", async () => {
    const counters = open().counters("test", 60);
    const a = scope();
    expect(await counters.add(1, [a], 1n)).toEqual([1n]);
    await redis.stop("SIGKILL");
    const results = await Promise.all(Array.from({ length: 50 }, () => outcome(() => counters.add(1, [a], 1n))));
    for (const result of results) expectUnavailable(result);

    await redis.start();
    // The client reconnects in the background (its retry waits grow to 2 s at most).
    const deadline = Date.now() + 5_000;
    let total: readonly bigint[] | null = null;
    while (total === null && Date.now() < deadline) {
      total = await counters.add(1, [a], 1n).catch(() => null);
      if (total === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A fresh server: nothing was persisted, the counter starts again.
    expect(total).toEqual([1n]);
  });

  test("down before the first call (a replica booting during the outage): bounded as well", async () => {
    await redis.stop("SIGKILL");
    const counters = open().counters("test", 60);
    expectUnavailable(await outcome(() => counters.add(1, [scope()], 1n)));
    expectUnavailable(await outcome(() => store.ping()));
  });
});

describe("Redis counters against a black hole (node:net server: accepts, reads, never answers)", () => {
  let hole: BlackHole;
  beforeAll(async () => {
    hole = await startBlackHole();
  });
  afterAll(async () => {
    await hole.close();
  });

  test("every call ends in COUNTERS_UNAVAILABLE 'no answer within 300 ms', 50 concurrent ones too, and close() does not wait for an answer", async () => {
    const store = createRedisCounterStore({ url: `redis://127.0.0.1:${hole.port}`, connectTimeoutMs: 300, commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const counters = store.counters("test", 60);
    expectUnavailable(await outcome(() => counters.add(1, ["a"], 1n)), `no answer within ${COMMAND_TIMEOUT_MS} ms`);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(() => (i % 2 ? counters.add(1, ["a"], 1n) : counters.subtract(1, ["a"], 1n)))));
    for (const result of results) expectUnavailable(result);
    expectUnavailable(await outcome(() => store.ping()));
    expect(hole.accepted()).toBeGreaterThan(0);
    const closing = await outcome(() => store.close());
    expect(closing.error).toBeNull();
    expect(closing.ms).toBeLessThan(BOUND_MS);
  });

  test("the default bounds (500 ms each, as REDIS_CONNECT_TIMEOUT_MS and REDIS_COMMAND_TIMEOUT_MS default) end a call in well under a second", async () => {
    const factory = windowCounterFactory(
      { REDIS_URL: `redis://127.0.0.1:${hole.port}`, REDIS_CONNECT_TIMEOUT_MS: 500, REDIS_COMMAND_TIMEOUT_MS: 500 },
      { query: async () => [], exec: async () => {} },
      { metrics: createPrometheusMetrics(), logger: recordingLogger().logger },
    );
    try {
      const result = await outcome(() => factory.counters("fee-budget", 3600).add(1, ["a"], 1n));
      expect(isCoded(result.error, "COUNTERS_UNAVAILABLE")).toBe(true);
      expect(result.ms).toBeGreaterThanOrEqual(450);
      expect(result.ms).toBeLessThan(1_000);
    } finally {
      await factory.close();
    }
  });
});

type Logged = Readonly<{ level: string; message: string; fields: LogFields }>;

function recordingLogger(): Readonly<{ logger: Logger; lines: Logged[] }> {
  const lines: Logged[] = [];
  const make = (context: LogFields): Logger => ({
    debug: (message, fields) => lines.push({ level: "debug", message, fields: { ...context, ...fields } }),
    info: (message, fields) => lines.push({ level: "info", message, fields: { ...context, ...fields } }),
    warn: (message, fields) => lines.push({ level: "warn", message, fields: { ...context, ...fields } }),
    error: (message, fields) => lines.push({ level: "error", message, fields: { ...context, ...fields } }),
    child: (fields) => make({ ...context, ...fields }),
  });
  return { logger: make({}), lines };
}

(own.run ? describe : describe.skip)("the composition counts every failure and logs each outage once (own redis-server)", () => {
  test("x402_counter_store_errors_total{op,backend} per failed call; one warning when calls start failing, one line when they work again", async () => {
    const redis = await startOwnRedis();
    const metrics = createPrometheusMetrics();
    const { logger, lines } = recordingLogger();
    const factory = windowCounterFactory({ REDIS_URL: redis.url, REDIS_CONNECT_TIMEOUT_MS: 300, REDIS_COMMAND_TIMEOUT_MS: COMMAND_TIMEOUT_MS }, { query: async () => [], exec: async () => {} }, { metrics, logger });
    try {
      const budget = factory.counters("fee-budget", 3600);
      const rate = factory.counters("register-rate", 60);
      expect(await budget.add(1, ["a"], 1n)).toEqual([1n]);
      await redis.stop("SIGKILL");
      for (const call of [() => budget.add(1, ["a"], 1n), () => rate.add(1, ["a"], 1n), () => budget.subtract(1, ["a"], 1n), () => factory.ping?.() ?? Promise.resolve()]) {
        expect(isCoded((await outcome(call)).error, "COUNTERS_UNAVAILABLE")).toBe(true);
      }
      const exposition = await metrics.render();
      expect(exposition).toContain('x402_counter_store_errors_total{op="add",backend="redis"} 2');
      expect(exposition).toContain('x402_counter_store_errors_total{op="subtract",backend="redis"} 1');
      expect(exposition).toContain('x402_counter_store_errors_total{op="ping",backend="redis"} 1');
      expect(lines.filter((line) => line.level === "warn")).toHaveLength(1);
      expect(lines[0]?.fields).toMatchObject({ backend: "redis", op: "add" });

      await redis.start();
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && (await budget.add(1, ["b"], 1n).catch(() => null)) === null) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lines.map((line) => line.message)).toContain("shared counters answer again");
    } finally {
      await factory.close();
      await redis.dispose();
    }
  });
});

const pg = await postgresGate("tests/counters");
failWhenRequired(pg, "PostgreSQL must be reachable in CI");

(pg.run ? describe : describe.skip)("window counters in PostgreSQL, reached through a TCP proxy that is cut (real server)", () => {
  test("the database unreachable is COUNTERS_UNAVAILABLE (not the store's STORE_UNAVAILABLE), naming no host or database; counting resumes once it is back", async () => {
    const database = await createTestDatabase();
    const admin = new URL(ADMIN_URL);
    const proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const store = await openStore({ databaseUrl: url.toString() });
    try {
      const counters = createSqlWindowCounters(store.executor, "rate-limit");
      expect(await counters.add(1, ["a"], 1n)).toEqual([1n]);
      await proxy.cut();
      const result = await outcome(() => counters.add(1, ["a"], 1n));
      expectUnavailable(result, "the database cannot be reached");
      expect((result.error as Error).message).not.toContain(database.name);
      expect(isCoded((result.error as Error).cause, "STORE_UNAVAILABLE")).toBe(true);

      await proxy.restore();
      const deadline = Date.now() + 10_000;
      let total: readonly bigint[] | null = null;
      while (total === null && Date.now() < deadline) {
        total = await counters.add(1, ["a"], 1n).catch(() => null);
        if (total === null) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The failed add never reached the database: the count goes on from 1.
      expect(total).toEqual([2n]);
    } finally {
      await store.close();
      await proxy.close();
      await database.drop();
    }
  }, 30_000);
});
