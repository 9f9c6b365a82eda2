import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type OpenedStore, createSqlSettlementStore, openStore } from "../../src/infrastructure/store/index.ts";
import type { SqlExecutor, SqlQueryable } from "../../src/infrastructure/store/sql-executor.ts";
import { type FaultRig, startFaultRig } from "./support/fault-rig.ts";
import { fundedPayment } from "../../fixtures/payments.ts";
import { postJson } from "./support/service-harness.ts";

/**
 * Counts the store round trips a settlement waits for (docs/performance.md, target 1): every
 * statement the settlement service and its fee budget run is timed at the executor, and
 * statements whose calls overlap count as one round trip of waiting (the lookup and the fee
 * charge leave together, on two connections in PostgreSQL).
 */
type Statement = Readonly<{ what: string; start: number; end: number }>;

function recording(inner: SqlExecutor, log: Statement[]): SqlExecutor {
  const timed = (db: SqlQueryable): SqlQueryable =>
    Object.freeze({
      async query(text, params) {
        const start = performance.now();
        try {
          return await db.query(text, params);
        } finally {
          log.push({ what: kindOf(text), start, end: performance.now() });
        }
      },
      exec: (script) => db.exec(script),
    });
  return Object.freeze({ ...inner, ...timed(inner), transaction: (fn) => inner.transaction((tx) => fn(timed(tx))) });
}

/** "INSERT settlements", "SELECT settlements", "INSERT fee_budget_windows", ... */
function kindOf(text: string): string {
  const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "?";
  const table = /\b(?:INTO|FROM|UPDATE)\s+(\w+)/i.exec(text)?.[1] ?? "?";
  return `${verb} ${table}`;
}

/** Statements in start order, grouped where their calls overlap: what a caller waited for in sequence. */
function roundTrips(log: readonly Statement[]): string[][] {
  const trips: { end: number; what: string[] }[] = [];
  for (const statement of [...log].sort((a, b) => a.start - b.start)) {
    const last = trips.at(-1);
    if (last && statement.start < last.end) {
      last.what.push(statement.what);
      last.end = Math.max(last.end, statement.end);
    } else trips.push({ end: statement.end, what: [statement.what] });
  }
  return trips.map((trip) => trip.what.sort());
}

const BUDGET = { perPayerLamports: 1_000_000n, perFeePayerLamports: 1_000_000_000n, windowSeconds: 3600 };
const log: Statement[] = [];
let store: OpenedStore;
let rig: FaultRig;

beforeAll(async () => {
  const opened = await openStore({ inMemory: true });
  const executor = recording(opened.executor, log);
  store = Object.freeze({ ...opened, executor, settlements: createSqlSettlementStore(executor) });
  rig = await startFaultRig({ store, feeBudget: BUDGET });
}, 30_000);

afterAll(async () => {
  await rig.close();
  await store.close();
});

describe("store round trips a settlement waits for (PGlite, fee budget in the same database)", () => {
  // The fee is charged after the ledger's preflight, never beside it: a payment the ledger would
  // refuse must not hold the fee payer's budget even for a simulation's length (issue 19).
  test("the first payment of a fee-budget window: the prune of older windows goes beside the charge, not before it", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    log.length = 0;

    expect((await postJson(rig.app, "/settle", payment.body)).body["success"]).toBe(true);

    expect(roundTrips(log)).toEqual([["SELECT settlements"], ["DELETE fee_budget_windows", "INSERT fee_budget_windows"], ["INSERT settlements"], ["UPDATE settlements"]]);
  });

  test("a new payment: the lookup (beside the simulation), the fee charge, the claim, the finish: four", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    log.length = 0;

    expect((await postJson(rig.app, "/settle", payment.body)).body["success"]).toBe(true);

    expect(roundTrips(log)).toEqual([["SELECT settlements"], ["INSERT fee_budget_windows"], ["INSERT settlements"], ["UPDATE settlements"]]);
  });

  test("a replay: the lookup, then the replay mark GET /settlements reports (`replayed`); nothing charged, nothing signed", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    expect((await postJson(rig.app, "/settle", payment.body)).body["success"]).toBe(true);
    const signatures = rig.signatures();
    log.length = 0;

    const replay = await postJson(rig.app, "/settle", payment.body);

    expect(replay.body["success"]).toBe(true);
    expect(rig.signatures()).toBe(signatures);
    expect(roundTrips(log)).toEqual([["SELECT settlements"], ["UPDATE settlements"]]);
  });

  test("a payment the ledger would refuse: the lookup, then the payer's attempt charge alone; nothing signed", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer, { fund: 0n });
    const signatures = rig.signatures();
    log.length = 0;

    expect((await postJson(rig.app, "/settle", payment.body)).body["errorReason"]).toBe("INSUFFICIENT_FUNDS");

    expect(rig.signatures()).toBe(signatures);
    expect(roundTrips(log)).toEqual([["SELECT settlements"], ["INSERT fee_budget_windows"]]);
  });
});
