import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { WindowCounters } from "../../src/application/ports/window-counters.ts";
import { createFeeBudget } from "../../src/application/settlement/fee-budget.ts";
import { createRedisCounterStore } from "../../src/infrastructure/counters/redis-window-counters.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import type { SqlQueryable } from "../../src/infrastructure/store/sql-executor.ts";
import { createSqlWindowCounters } from "../../src/infrastructure/store/sql-window-counters.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, createTestDatabase, type TestDatabase } from "../support/postgres.ts";
import { TEST_REDIS_URL, redisGate } from "../support/redis.ts";

type Backend = Readonly<{ counters: WindowCounters; second?: WindowCounters; other?: WindowCounters; close(): Promise<void> }>;

/** The same contract for every backend of the fee budget's shared counters. */
function describeWindowCountersContract(name: string, open: () => Promise<Backend>): void {
  describe(`window counters: ${name}`, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
    }, 30_000);
    afterAll(async () => {
      await backend.close();
    });
    const scope = () => `test:${crypto.randomUUID()}`;

    test("add returns each scope's new total, in the order asked; subtract takes it back", async () => {
      const [a, b] = [scope(), scope()];
      expect(await backend.counters.add(7, [a, b], 5_000n)).toEqual([5_000n, 5_000n]);
      expect(await backend.counters.add(7, [b, a], 2_500n)).toEqual([7_500n, 7_500n]);
      await backend.counters.subtract(7, [a, b], 2_500n);
      expect(await backend.counters.add(7, [a], 0n)).toEqual([5_000n]);
    });

    test("a namespace's old windows are pruned without touching another namespace's", async () => {
      const a = scope();
      await backend.counters.add(3, [a], 5n);
      if (backend.other) {
        // A per-minute counter's window numbers are far larger than an hourly one's.
        await backend.other.add(29_000_000, [a], 1n);
        expect(await backend.counters.add(3, [a], 0n)).toEqual([5n]);
      }
    });

    test("windows are separate counters", async () => {
      const a = scope();
      await backend.counters.add(100, [a], 9_000n);
      expect(await backend.counters.add(101, [a], 1n)).toEqual([1n]);
    });

    test("200 concurrent adds lose nothing (atomic increments)", async () => {
      const a = scope();
      const counters = backend.second ? [backend.counters, backend.second] : [backend.counters];
      await Promise.all(Array.from({ length: 200 }, (_, i) => counters[i % counters.length]?.add(9, [a, "shared:x"], 10n)));
      expect(await backend.counters.add(9, [a], 0n)).toEqual([2_000n]);
    });

    test("concurrent adds to one counter each get the total they would have got one after another", async () => {
      const a = scope();
      const counters = backend.second ? [backend.counters, backend.second] : [backend.counters];
      const totals = await Promise.all(Array.from({ length: 50 }, (_, i) => counters[i % counters.length]!.add(11, [a, `${a}:b`], 10n)));
      // Every running total from 10 to 500 exactly once, and both scopes of one call move together.
      expect(totals.map(([total]) => total ?? 0n).sort((x, y) => (x < y ? -1 : 1))).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(10 * (i + 1))));
      for (const [first, second] of totals) expect(second).toBe(first!);
    });

    test("the fee budget over these counters never lets concurrent reservations pass a limit together", async () => {
      const clock = { now: () => 1_700_000_000_000 };
      const limits = { perPayerLamports: 50_000n, perFeePayerLamports: 1_000_000n, windowSeconds: 3600 };
      const budgets = (backend.second ? [backend.counters, backend.second] : [backend.counters]).map((c) => createFeeBudget(c, limits, clock));
      const payer = scope();
      const verdicts = await Promise.all(
        Array.from({ length: 40 }, (_, i) => budgets[i % budgets.length]!.reserve({ payer, feePayer: `fp-${payer}`, lamports: 10_000n })),
      );
      // 50,000 / 10,000: exactly five fit, whatever the interleaving.
      expect(verdicts.filter((v) => v.ok)).toHaveLength(5);
      const refused = verdicts.find((v) => !v.ok);
      expect(refused && !refused.ok ? refused.message : "").toContain(`payer ${payer}`);
      // A released reservation makes room for exactly one more.
      const granted = verdicts.find((v) => v.ok);
      if (granted?.ok) await budgets[0]!.release(granted.reservation);
      expect((await budgets[0]!.reserve({ payer, feePayer: `fp-${payer}`, lamports: 10_000n })).ok).toBe(true);
      expect((await budgets[0]!.reserve({ payer, feePayer: `fp-${payer}`, lamports: 10_000n })).ok).toBe(false);
    });

    test("the fee payer's own budget is shared by all its payers", async () => {
      const clock = { now: () => 1_700_000_000_000 };
      const budget = createFeeBudget(backend.counters, { perPayerLamports: 1_000_000n, perFeePayerLamports: 30_000n, windowSeconds: 60 }, clock);
      const feePayer = scope();
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await budget.reserve({ payer: scope(), feePayer, lamports: 10_000n }));
      expect(results.map((r) => r.ok)).toEqual([true, true, true, false, false]);
      const last = results[4];
      expect(last && !last.ok ? last.message : "").toContain(`fee payer ${feePayer}`);
    });

    test("a new window starts a new budget", async () => {
      let now = 1_800_000_000_000;
      const budget = createFeeBudget(backend.counters, { perPayerLamports: 10_000n, perFeePayerLamports: 1_000_000n, windowSeconds: 60 }, { now: () => now });
      const payer = scope();
      expect((await budget.reserve({ payer, feePayer: "fp-window", lamports: 10_000n })).ok).toBe(true);
      expect((await budget.reserve({ payer, feePayer: "fp-window", lamports: 1n })).ok).toBe(false);
      now += 60_000;
      expect((await budget.reserve({ payer, feePayer: "fp-window", lamports: 10_000n })).ok).toBe(true);
    });
  });
}

/** The executor's statements, counted. */
function counting(db: SqlQueryable): SqlQueryable & { statements(): number } {
  let statements = 0;
  return Object.freeze({
    query: (text: string, params?: Parameters<SqlQueryable["query"]>[1]) => {
      statements += 1;
      return db.query(text, params);
    },
    exec: (script: string) => db.exec(script),
    statements: () => statements,
  });
}

describe("window counters in the database: group commit", () => {
  test("200 concurrent adds from one process are one statement (plus the window prune), with exact totals", async () => {
    const store = await openStore({ inMemory: true });
    try {
      const db = counting(store.executor);
      const counters = createSqlWindowCounters(db);
      const totals = await Promise.all(Array.from({ length: 200 }, (_, i) => counters.add(5, ["shared", `own-${i}`], 1n)));
      expect(db.statements()).toBe(2);
      expect(new Set(totals.map(([shared]) => shared)).size).toBe(200);
      expect(totals.every(([, own]) => own === 1n)).toBe(true);
      await Promise.all(Array.from({ length: 50 }, (_, i) => counters.subtract(5, ["shared", `own-${i}`], 1n)));
      expect(db.statements()).toBe(3);
      expect(await counters.add(5, ["shared"], 0n)).toEqual([150n]);
    } finally {
      await store.close();
    }
  });
});

describeWindowCountersContract("PGlite (real, in memory)", async () => {
  const store = await openStore({ inMemory: true });
  return { counters: createSqlWindowCounters(store.executor), other: createSqlWindowCounters(store.executor, "rate-limit"), close: () => store.close() };
});

const pg = await postgresGate("tests/counters");
failWhenRequired(pg, "PostgreSQL must be reachable in CI");
if (pg.run) {
  describeWindowCountersContract("PostgreSQL (real server, two connection pools as two replicas)", async () => {
    const database: TestDatabase = await createTestDatabase();
    const stores: OpenedStore[] = [await openStore({ databaseUrl: database.url }), await openStore({ databaseUrl: database.url })];
    return {
      counters: createSqlWindowCounters(stores[0]!.executor),
      second: createSqlWindowCounters(stores[1]!.executor),
      other: createSqlWindowCounters(stores[1]!.executor, "rate-limit"),
      close: async () => {
        for (const store of stores) await store.close();
        await database.drop();
      },
    };
  });
}

if (pg.run) {
  describe("window counters in PostgreSQL: the charge's commit", () => {
    test("commits without waiting for its WAL flush, for its own transaction only (the claim after it stays synchronous)", async () => {
      const database = await createTestDatabase();
      const store = await openStore({ databaseUrl: database.url });
      const session = await store.executor.session!();
      const mode = async () => String((await session.query("SELECT current_setting('synchronous_commit') AS mode"))[0]?.["mode"]);
      try {
        const counters = createSqlWindowCounters(session);
        expect(await mode()).toBe("on");
        // Inside an explicit transaction, so the setting the statement made can be read before it ends.
        await session.query("BEGIN");
        expect(await counters.add(1, ["payer:sync-test"], 7n)).toEqual([7n]);
        expect(await mode()).toBe("off");
        await session.query("COMMIT");
        expect(await mode()).toBe("on");
        // Outside one: the statement's own transaction ends with it, and the setting with it.
        expect(await counters.add(1, ["payer:sync-test"], 1n)).toEqual([8n]);
        expect(await mode()).toBe("on");
      } finally {
        session.release();
        await store.close();
        await database.drop();
      }
    });
  });
}

const redis = await redisGate("tests/counters");
failWhenRequired(redis, "Redis must be reachable in CI");
if (redis.run) {
  describeWindowCountersContract("Redis (real server, two clients as two replicas)", async () => {
    const prefix = `test:${crypto.randomUUID()}`;
    const open = () => createRedisCounterStore({ url: TEST_REDIS_URL, connectTimeoutMs: 500, commandTimeoutMs: 500 });
    const clients = [open(), open()];
    return {
      counters: clients[0]!.counters(prefix, 60),
      second: clients[1]!.counters(prefix, 60),
      other: clients[1]!.counters(`${prefix}:rate-limit`, 60),
      close: async () => {
        for (const client of clients) await client.close();
      },
    };
  });
}
