import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SettlementStore } from "../../src/application/ports/settlement-store.ts";
import type { OpenedStore } from "../../src/infrastructure/store/index.ts";
import { applyMigrations, createSqlSettlementStore, LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/infrastructure/store/index.ts";
import type { SqlExecutor, SqlParam } from "../../src/infrastructure/store/index.ts";
import { draft, draftPart, uniqueId } from "../../fixtures/settlement-drafts.ts";

export type StoreHarness = Readonly<{
  /** Opens a store on the same database every time (so a reopen sees earlier data). */
  open(): Promise<OpenedStore>;
  /**
   * True when a second store may be open on the same database at once (PostgreSQL: a
   * second client instance modelling a second replica). PGlite is one process, one store.
   */
  replicas: boolean;
}>;

/**
 * The SettlementStore contract, run unchanged against every backend. Tests share one
 * database and use fresh keys, so they do not depend on each other; the reopen test runs
 * last because it replaces the open store.
 */
export function describeSettlementStoreContract(label: string, harness: StoreHarness): void {
  describe(`SettlementStore contract on ${label}`, () => {
    let primary: OpenedStore;
    let peer: OpenedStore;
    const store = (): SettlementStore => primary.settlements;
    /** Alternates between the two client instances (or uses the one store). */
    const replica = (i: number): SettlementStore => (i % 2 === 0 ? primary : peer).settlements;

    beforeAll(async () => {
      primary = await harness.open();
      peer = harness.replicas ? await harness.open() : primary;
    });

    afterAll(async () => {
      if (peer !== undefined && peer !== primary) await peer.close();
      if (primary !== undefined) await primary.close();
    });

    test("claim then get round-trips every field, with amounts beyond 2^53", async () => {
      const d = draft({ amount: 2n ** 64n - 1n, lastValidBlockHeight: 2n ** 53n + 1n, mode: "delegated" });
      const result = await store().claim(d);
      expect(result.outcome).toBe("claimed");
      expect(draftPart(result.record)).toEqual(d);
      expect(result.record.state).toBe("pending");
      expect(result.record.attempts).toBe(1);
      expect(result.record.error).toBeNull();
      expect(result.record.createdAt).toBeInstanceOf(Date);
      expect(await store().get(d.key)).toEqual(result.record);
      expect(await store().findByPaymentId(d.payer, d.paymentId ?? "")).toEqual(result.record);
    });

    test("nullable fields round-trip as null", async () => {
      const d = draft({ paymentId: null, wireTransaction: null, lastValidBlockHeight: null, amount: 0n });
      const result = await store().claim(d);
      expect(result.outcome).toBe("claimed");
      expect(draftPart((await store().get(d.key)) ?? result.record)).toEqual(d);
    });

    test("unknown key and paymentId read as null", async () => {
      expect(await store().get(uniqueId())).toBeNull();
      expect(await store().findByPaymentId(draft().payer, uniqueId())).toBeNull();
    });

    test("a duplicate key is `exists` and keeps the first claim", async () => {
      const first = draft();
      await store().claim(first);
      const second = await store().claim({ ...first, payer: "SomeoneElse1111111111111111111111111111111" });
      expect(second.outcome).toBe("exists");
      expect(draftPart(second.record)).toEqual(first);
    });

    test("a duplicate paymentId under another key is `exists` with the record holding it", async () => {
      const first = draft();
      await store().claim(first);
      const other = draft({ paymentId: first.paymentId });
      const result = await store().claim(other);
      expect(result.outcome).toBe("exists");
      expect(result.record.key).toBe(first.key);
      expect(await store().get(other.key)).toBeNull();
    });

    test("50 concurrent claims of one key, across client instances: exactly one is claimed", async () => {
      const key = uniqueId("race");
      const drafts = Array.from({ length: 50 }, (_, i) => draft({ key, paymentId: null, payer: `payer-${i}` }));
      const results = await Promise.all(drafts.map((d, i) => replica(i).claim(d)));
      const winners = results.filter((r) => r.outcome === "claimed");
      expect(winners).toHaveLength(1);
      const winnerPayer = winners[0]?.record.payer;
      for (const r of results) expect(r.record.payer).toBe(winnerPayer ?? "");
      expect((await store().get(key))?.payer).toBe(winnerPayer ?? "");
    });

    test("a paymentId is scoped to its payer: another payer's claim of the same id is its own payment", async () => {
      const first = draft();
      const other = draft({ paymentId: first.paymentId, payer: "OtherPayer111111111111111111111111111111111" });
      expect((await store().claim(first)).outcome).toBe("claimed");
      expect((await store().claim(other)).outcome).toBe("claimed");
      expect((await store().findByPaymentId(other.payer, other.paymentId ?? ""))?.key).toBe(other.key);
      expect((await store().findByPaymentId(first.payer, first.paymentId ?? ""))?.key).toBe(first.key);
    });

    test("50 concurrent claims of one paymentId under different keys: exactly one is claimed", async () => {
      const paymentId = uniqueId("pid");
      const drafts = Array.from({ length: 50 }, () => draft({ paymentId }));
      const results = await Promise.all(drafts.map((d, i) => replica(i).claim(d)));
      const winners = results.filter((r) => r.outcome === "claimed");
      expect(winners).toHaveLength(1);
      const winnerKey = winners[0]?.record.key ?? "";
      for (const r of results) expect(r.record.key).toBe(winnerKey);
      const losers = drafts.filter((d) => d.key !== winnerKey);
      for (const d of losers.slice(0, 5)) expect(await store().get(d.key)).toBeNull();
    });

    test("a failed claim can be claimed again (attempts 2); a settled one cannot", async () => {
      const d = draft();
      const first = await store().claim(d);
      await store().finish(d.key, d.signature, { state: "failed", error: "blockhash expired" });
      const failed = await store().get(d.key);
      expect(failed?.state).toBe("failed");
      expect(failed?.error).toBe("blockhash expired");

      const retry = await store().claim({ ...d, signature: "retry-signature", lastValidBlockHeight: 9_999n });
      expect(retry.outcome).toBe("claimed");
      expect(retry.record.attempts).toBe(2);
      expect(retry.record.state).toBe("pending");
      expect(retry.record.error).toBeNull();
      expect(retry.record.signature).toBe("retry-signature");
      expect(retry.record.lastValidBlockHeight).toBe(9_999n);
      expect(retry.record.createdAt.getTime()).toBe(first.record.createdAt.getTime());

      // A late outcome about the first attempt must not finish the retry.
      expect(await store().finish(d.key, d.signature, { state: "failed", error: "stale reconciler" })).toBe(false);
      expect((await store().get(d.key))?.state).toBe("pending");
      expect(await store().finish(d.key, "retry-signature", { state: "settled" })).toBe(true);
      const again = await store().claim(d);
      expect(again.outcome).toBe("exists");
      expect(again.record.state).toBe("settled");
      expect(again.record.attempts).toBe(2);
    });

    test("concurrent retries of one failed claim: exactly one takes it over", async () => {
      const d = draft();
      await store().claim(d);
      await store().finish(d.key, d.signature, { state: "failed", error: "rpc down" });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => replica(i).claim({ ...d, signature: `retry-${i}` })),
      );
      const winners = results.filter((r) => r.outcome === "claimed");
      expect(winners).toHaveLength(1);
      const stored = await store().get(d.key);
      expect(stored?.attempts).toBe(2);
      expect(stored?.state).toBe("pending");
      expect(stored?.signature).toBe(winners[0]?.record.signature ?? "");
    });

    test("a paymentId held only by a failed record serves a new transaction; the failed record gives it up", async () => {
      const failedOne = draft();
      await store().claim(failedOne);
      await store().finish(failedOne.key, failedOne.signature, { state: "failed", error: "blockhash expired" });
      const rebuilt = draft({ paymentId: failedOne.paymentId });
      const result = await store().claim(rebuilt);
      expect(result.outcome).toBe("claimed");
      expect((await store().findByPaymentId(failedOne.payer, failedOne.paymentId ?? ""))?.key).toBe(rebuilt.key);
      const released = await store().get(failedOne.key);
      expect(released?.state).toBe("failed");
      expect(released?.paymentId).toBeNull();
    });

    test("a paymentId held by a settled record is never given up", async () => {
      const settled = draft();
      await store().claim(settled);
      await store().finish(settled.key, settled.signature, { state: "settled" });
      const result = await store().claim(draft({ paymentId: settled.paymentId }));
      expect(result.outcome).toBe("exists");
      expect(result.record.key).toBe(settled.key);
    });

    test("retrying a failed key with a paymentId another record holds is `exists` with that record", async () => {
      const holder = draft();
      await store().claim(holder);
      const failedOne = draft();
      await store().claim(failedOne);
      await store().finish(failedOne.key, failedOne.signature, { state: "failed", error: "x" });
      const result = await store().claim({ ...failedOne, paymentId: holder.paymentId });
      expect(result.outcome).toBe("exists");
      expect(result.record.key).toBe(holder.key);
      expect((await store().get(failedOne.key))?.state).toBe("failed");
    });

    test("budgeted claims: 20 concurrent payments against one Delegation never exceed its budget", async () => {
      const delegation = uniqueId("delegation");
      const budget = { delegation, remaining: 5_000_000n, usesRemaining: null };
      const drafts = Array.from({ length: 20 }, () => draft({ mode: "delegated", paymentId: null, amount: 2_000_000n }));
      const results = await Promise.all(drafts.map((d) => store().claimWithinBudget(d, budget)));
      expect(results.filter((r) => r.outcome === "claimed").length).toBe(2);
      expect(results.filter((r) => r.outcome === "over-budget").length).toBe(18);

      // A failed payment spent nothing: its share of the budget is free again.
      const first = drafts[results.findIndex((r) => r.outcome === "claimed")];
      if (!first) throw new Error("no claim");
      await store().finish(first.key, first.signature, { state: "failed", error: "expired" });
      expect((await store().claimWithinBudget(draft({ mode: "delegated", paymentId: null, amount: 2_000_000n }), budget)).outcome).toBe("claimed");
      expect((await store().claimWithinBudget(draft({ mode: "delegated", paymentId: null, amount: 1_000_001n }), budget)).outcome).toBe("over-budget");
      // Another Delegation has its own budget.
      expect((await store().claimWithinBudget(draft({ mode: "delegated", paymentId: null }), { ...budget, delegation: uniqueId("other") })).outcome).toBe("claimed");
    });

    test("budgeted claims honour the Delegation's remaining uses", async () => {
      const budget = { delegation: uniqueId("delegation"), remaining: null, usesRemaining: 2n };
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push((await store().claimWithinBudget(draft({ mode: "delegated", paymentId: null }), budget)).outcome);
      expect(outcomes).toEqual(["claimed", "claimed", "over-budget"]);
    });

    test("pending -> settled; finish never overwrites a final state; a legacy `submitted` record finishes like a pending one", async () => {
      const settled = draft();
      await store().claim(settled);
      expect(await store().finish(settled.key, settled.signature, { state: "settled" })).toBe(true);
      expect(await store().finish(settled.key, settled.signature, { state: "failed", error: "late failure" })).toBe(false);
      const afterSettled = await store().get(settled.key);
      expect(afterSettled?.state).toBe("settled");
      expect(afterSettled?.error).toBeNull();

      const failed = draft();
      await store().claim(failed);
      await store().finish(failed.key, failed.signature, { state: "failed", error: "first error" });
      await store().finish(failed.key, failed.signature, { state: "settled" });
      await store().finish(failed.key, failed.signature, { state: "failed", error: "second error" });
      const afterFailed = await store().get(failed.key);
      expect(afterFailed?.state).toBe("failed");
      expect(afterFailed?.error).toBe("first error");

      // Written by a release that still recorded sends.
      const legacy = draft();
      await store().claim(legacy);
      await primary.executor.query("UPDATE settlements SET state = 'submitted' WHERE key = $1", [legacy.key]);
      expect((await store().get(legacy.key))?.state).toBe("submitted");
      expect(await store().finish(legacy.key, legacy.signature, { state: "settled" })).toBe(true);
      expect((await store().get(legacy.key))?.state).toBe("settled");
    });

    test("listUnresolved returns pending (and legacy submitted) records of its network only, oldest first, within the limit", async () => {
      // Keys sort differently from insertion order, so ordering by key would fail.
      const tag = uniqueId();
      const network = `solana:${tag.slice(0, 32)}`;
      const a = draft({ key: `z-${tag}`, network });
      const b = draft({ key: `a-${tag}`, network });
      const c = draft({ key: `m-${tag}`, network });
      const e = draft({ key: `b-${tag}`, network });
      // Another environment's open record in the same database.
      const foreign = draft({ key: `c-${tag}`, network: `solana:other${tag.slice(0, 26)}` });
      for (const d of [a, b, c, e, foreign]) await store().claim(d);
      await store().finish(b.key, b.signature, { state: "settled" });
      await primary.executor.query("UPDATE settlements SET state = 'submitted' WHERE key = $1", [c.key]);
      await store().finish(e.key, e.signature, { state: "failed", error: "x" });

      const unresolved = await store().listUnresolved(network, 1000);
      expect(unresolved.map((r) => r.key)).toEqual([a.key, c.key]);
      expect(unresolved.map((r) => r.state)).toEqual(["pending", "submitted"]);
      expect((await store().listUnresolved(foreign.network, 1000)).map((r) => r.key)).toEqual([foreign.key]);
      expect(await store().listUnresolved(network, 1)).toHaveLength(1);
      expect(await store().listUnresolved(network, 0)).toHaveLength(0);
    });

    test("settleLanded: the ledger's word moves pending or failed to settled for the record's own signature, and reports the state left", async () => {
      const [pending, failed, settled, retaken] = [draft(), draft(), draft(), draft()];
      for (const d of [pending, failed, settled, retaken]) await store().claim(d);
      await store().finish(failed.key, failed.signature, { state: "failed", error: "blockhash expired before the transaction landed" });
      await store().finish(settled.key, settled.signature, { state: "settled" });

      expect(await store().settleLanded(pending.key, pending.signature)).toBe("pending");
      expect(await store().settleLanded(failed.key, failed.signature)).toBe("failed");
      const corrected = await store().get(failed.key);
      expect(corrected).toMatchObject({ state: "settled", error: null, signature: failed.signature, attempts: 1 });
      // Nothing to do: already settled, another attempt's signature, no such record.
      expect(await store().settleLanded(settled.key, settled.signature)).toBeNull();
      expect(await store().settleLanded(failed.key, failed.signature)).toBeNull();
      expect(await store().settleLanded(retaken.key, uniqueId("other-attempt"))).toBeNull();
      expect((await store().get(retaken.key))?.state).toBe("pending");
      expect(await store().settleLanded(uniqueId("absent"), "sig")).toBeNull();
      // A finish never undoes it.
      expect(await store().finish(failed.key, failed.signature, { state: "failed", error: "late" })).toBe(false);
      expect((await store().get(failed.key))?.state).toBe("settled");
    });

    test("settleLanded from two replicas at once: exactly one reports the correction", async () => {
      const d = draft();
      await store().claim(d);
      await store().finish(d.key, d.signature, { state: "failed", error: "x" });
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => replica(i).settleLanded(d.key, d.signature)));
      expect(answers.filter((a) => a === "failed")).toHaveLength(1);
      expect(answers.filter((a) => a === null)).toHaveLength(5);
    });

    test("listRecentlyFailed: failed records of its network updated within the window, most recent first", async () => {
      const tag = uniqueId();
      const network = `solana:${tag.slice(0, 32)}`;
      const [older, newer, old, open, settled] = [draft({ network }), draft({ network }), draft({ network }), draft({ network }), draft({ network })];
      const foreign = draft({ network: `solana:other${tag.slice(0, 26)}` });
      for (const d of [older, newer, old, open, settled, foreign]) await store().claim(d);
      for (const d of [older, newer, old, foreign]) await store().finish(d.key, d.signature, { state: "failed", error: "x" });
      await store().finish(settled.key, settled.signature, { state: "settled" });
      await primary.executor.query("UPDATE settlements SET updated_at = now() - interval '10 seconds' WHERE key = $1", [older.key]);
      await primary.executor.query("UPDATE settlements SET updated_at = now() - interval '2 hours' WHERE key = $1", [old.key]);

      expect((await store().listRecentlyFailed(network, 3600, 100)).map((r) => r.key)).toEqual([newer.key, older.key]);
      expect((await store().listRecentlyFailed(network, 3600, 1)).map((r) => r.key)).toEqual([newer.key]);
      expect((await store().listRecentlyFailed(network, 3 * 3600, 100)).map((r) => r.key)).toEqual([newer.key, older.key, old.key]);
      expect(await store().listRecentlyFailed(network, 0, 100)).toHaveLength(0);
      expect((await store().listRecentlyFailed(foreign.network, 3600, 100)).map((r) => r.key)).toEqual([foreign.key]);
    });

    test("backlog: open records of its network by state, and when the oldest was claimed", async () => {
      const tag = uniqueId();
      const network = `solana:${tag.slice(0, 32)}`;
      expect(await store().backlog(network)).toEqual({ open: { pending: 0, submitted: 0 }, oldestCreatedAt: null });
      const [first, second, legacy, done] = [draft({ network }), draft({ network }), draft({ network }), draft({ network })];
      for (const d of [first, second, legacy, done, draft({ network: `solana:other${tag.slice(0, 26)}` })]) await store().claim(d);
      await store().finish(done.key, done.signature, { state: "settled" });
      await primary.executor.query("UPDATE settlements SET state = 'submitted', created_at = now() - interval '5 minutes' WHERE key = $1", [legacy.key]);
      const backlog = await store().backlog(network);
      expect(backlog.open).toEqual({ pending: 2, submitted: 1 });
      const age = Date.now() - (backlog.oldestCreatedAt?.getTime() ?? Date.now());
      expect(age).toBeGreaterThan(4 * 60_000);
      expect(age).toBeLessThan(6 * 60_000);
    });

    test("group commit: 100 concurrent claims, then their finishes and lookups, each take one statement per batch", async () => {
      const db = countingExecutor(primary.executor);
      const batched = createSqlSettlementStore(db);
      const drafts = Array.from({ length: 100 }, () => draft());
      const claims = await Promise.all(drafts.map((d) => batched.claim(d)));
      expect(claims.every((c) => c.outcome === "claimed")).toBe(true);
      expect(db.statements()).toBe(1);
      expect(await Promise.all(drafts.map((d) => batched.finish(d.key, d.signature, { state: "settled" })))).toEqual(drafts.map(() => true));
      expect(db.statements()).toBe(2);
      const found = await Promise.all(drafts.map((d, i) => (i % 2 === 0 ? batched.findExisting(d.key, null) : batched.findExisting(uniqueId(), { payer: d.payer, paymentId: d.paymentId ?? "" }))));
      expect(found.map((r) => r?.key)).toEqual(drafts.map((d) => d.key));
      expect(found.every((r) => r?.state === "settled")).toBe(true);
      expect(db.statements()).toBe(3);
    });

    test("one batch holding two claims of one key and two of one paymentId: exactly one of each is claimed", async () => {
      const key = uniqueId("k");
      const paymentId = uniqueId("p");
      const results = await Promise.all([
        store().claim(draft({ key, payer: "first-of-key" })),
        store().claim(draft({ key, payer: "second-of-key" })),
        store().claim(draft({ paymentId })),
        store().claim(draft({ paymentId })),
      ]);
      expect(results.map((r) => r.outcome).sort()).toEqual(["claimed", "claimed", "exists", "exists"]);
      expect(results[0]?.record.payer).toBe(results[1]?.record.payer ?? "");
      expect(results[2]?.record.key).toBe(results[3]?.record.key ?? "");
    });

    test("one batch finishing one key twice: exactly one finish takes it", async () => {
      const d = draft();
      await store().claim(d);
      const finished = await Promise.all([
        store().finish(d.key, d.signature, { state: "settled" }),
        store().finish(d.key, d.signature, { state: "failed", error: "late" }),
      ]);
      expect(finished.filter(Boolean)).toHaveLength(1);
      expect((await store().get(d.key))?.state).toBe(finished[0] ? "settled" : "failed");
    });

    test("findExisting: the record holding the key, else the one holding the payer's paymentId, else null", async () => {
      const holder = draft();
      await store().claim(holder);
      expect((await store().findExisting(holder.key, null))?.key).toBe(holder.key);
      expect((await store().findExisting(uniqueId(), { payer: holder.payer, paymentId: holder.paymentId ?? "" }))?.key).toBe(holder.key);
      expect(await store().findExisting(uniqueId(), { payer: "AnotherPayer11111111111111111111111111111111", paymentId: holder.paymentId ?? "" })).toBeNull();
      expect(await store().findExisting(uniqueId(), null)).toBeNull();
    });

    test("a batch statement that fails fails every call in it, and the next batch goes on", async () => {
      let failNext = true;
      const flaky: SqlExecutor = Object.freeze({
        ...primary.executor,
        query: (text: string, params?: readonly SqlParam[]) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error("connection lost"));
          }
          return primary.executor.query(text, params);
        },
      });
      const batched = createSqlSettlementStore(flaky);
      const first = await Promise.allSettled([batched.claim(draft()), batched.claim(draft())]);
      expect(first.map((r) => r.status)).toEqual(["rejected", "rejected"]);
      expect((await batched.claim(draft())).outcome).toBe("claimed");
    });

    test("drafts outside the column ranges are rejected before reaching the database", async () => {
      await expect(store().claim(draft({ amount: -1n }))).rejects.toThrow(RangeError);
      await expect(store().claim(draft({ amount: 2n ** 64n }))).rejects.toThrow(RangeError);
      await expect(store().claim(draft({ lastValidBlockHeight: 2n ** 63n }))).rejects.toThrow(RangeError);
      await expect(store().claim(draft({ key: "" }))).rejects.toThrow(RangeError);
    });

    test("the schema has users and auth_nonces and enforces the state check", async () => {
      const tables = await primary.executor.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      const names = tables.map((row) => row["table_name"]);
      for (const name of ["auth_nonces", "schema_migrations", "settlements", "users"]) expect(names).toContain(name);
      const d = draft();
      await store().claim(d);
      await expect(
        primary.executor.query("UPDATE settlements SET state = 'bogus' WHERE key = $1", [d.key]),
      ).rejects.toThrow();
      expect((await store().get(d.key))?.state).toBe("pending");
    });

    test("ping answers and reports the latest schema version", async () => {
      await primary.ping();
      expect(await primary.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    });

    test("reopening applies no migration twice and keeps the data", async () => {
      const d = draft({ amount: 2n ** 63n + 7n });
      await store().claim(d);
      if (peer !== primary) await peer.close();
      await primary.close();
      primary = await harness.open();
      peer = harness.replicas ? await harness.open() : primary;

      expect(draftPart((await store().get(d.key)) ?? draft())).toEqual(d);
      expect(await primary.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
      const rows = await primary.executor.query("SELECT version FROM schema_migrations ORDER BY version");
      expect(rows.map((row) => row["version"])).toEqual(MIGRATIONS.map((m) => m.version));
      const rerun = await applyMigrations(primary.executor);
      expect(rerun.applied).toEqual([]);
      expect(rerun.version).toBe(LATEST_SCHEMA_VERSION);
    });
  });
}

/** The executor, with its statements counted (one statement is one round trip). */
function countingExecutor(executor: SqlExecutor): SqlExecutor & { statements(): number } {
  let statements = 0;
  return Object.freeze({
    ...executor,
    query: (text: string, params?: readonly SqlParam[]) => {
      statements += 1;
      return executor.query(text, params);
    },
    statements: () => statements,
  });
}
