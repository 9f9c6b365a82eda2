/**
 * A store outage in the middle of a burst of settlements, and the checks that nothing went wrong:
 * the real service (buildService) on real PostgreSQL, the embedded ledger over JSON-RPC behind a
 * counting proxy, N distinct payments settled `inFlight` at a time while `fault` breaks the database. After
 * the burst every failed client retries once, the reconciler (every second) finishes what was
 * left open, and the ledger is compared with every answer and every record.
 */
import { expect } from "bun:test";
import type { Address } from "@solana/kit";
import { createLocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { startLedgerProxy } from "../../../fixtures/ledger-proxy.ts";
import { DEFAULT_AMOUNT, type Payment, fundedPayment, newFeePayerKey, settlementKeyOfPayment, usdcOf } from "../../../fixtures/payments.ts";
import { type JsonReply, postJson, startService } from "./service-harness.ts";

export type OutageFigures = Readonly<{
  settlements: number;
  /** Answers of the burst by kind: success, or the start of the failure's message. */
  answers: Readonly<Record<string, number>>;
  /** From the end of the fault to the first new payment that settled. */
  recoveryMs: number;
  /** From the end of the fault until no record was open (measured once the burst was over). */
  allFinalMs: number;
  /** From the end of the fault until the last answer of the burst (negative: the burst ended during the fault). */
  burstEndMs: number;
  /** Retries of failed answers (same transaction) that then succeeded. */
  retriesSettled: number;
  sendsForwarded: number;
}>;

export type Fault = Readonly<{
  /** Breaks the database once `sent` sends have reached the ledger; resolves when it works again. */
  afterSends: number;
  run(): Promise<void>;
}>;

const TRUE_FAILURES: readonly string[] = [
  // Each failure a client may get while the store is down, and what it promises.
  "the settlement store is unavailable", // nothing was signed or submitted: no record may exist
  "the settlement store did not confirm the claim", // a retry of the same transaction finds the outcome
  "confirmation could not be obtained", // recorded; reconciliation finishes it
  "FEE_BUDGET_UNAVAILABLE", // the budget's counters (in this database) failed to answer: nothing was signed, no record
];

export async function runOutage(databaseUrl: string, count: number, inFlight: number, fault: Fault): Promise<OutageFigures> {
  const ledger = createLocalLedger();
  const proxy = startLedgerProxy(ledger);
  const key = await newFeePayerKey();
  await ledger.airdrop(key.address, 100_000_000_000n);
  const service = await startService({
    SOLANA_RPC_URL: proxy.url,
    DATABASE_URL: databaseUrl,
    FEE_PAYER_PRIVATE_KEY: key.json,
    RECONCILE_INTERVAL_SECONDS: "1",
  });
  try {
    const feePayer = key.address as Address;
    const payments: Payment[] = [];
    for (let i = 0; i < count; i += 50) payments.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => fundedPayment(ledger, feePayer)))));
    const settle = (payment: Payment) => postJson(service.facilitatorApp, "/settle", payment.body);

    // The burst, with the fault injected once enough of it is in flight. Recovery: from the end of
    // the fault, how soon a new payment settles again (tried every 100 ms beside the burst).
    const probe = await fundedPayment(ledger, feePayer);
    let faultEndedAt = 0;
    let recoveryMs = Number.NaN;
    const faulted = (async () => {
      while (proxy.forwarded("sendTransaction") < fault.afterSends) await new Promise((resolve) => setTimeout(resolve, 2));
      await fault.run();
      faultEndedAt = performance.now();
      while (performance.now() - faultEndedAt < 60_000) {
        if ((await settle(probe)).body["success"] === true) {
          recoveryMs = performance.now() - faultEndedAt;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const replies: JsonReply[] = [];
    let next = 0;
    const worker = async () => {
      while (next < payments.length) {
        const index = next++;
        replies[index] = await settle(payments[index] as Payment);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const burstEndedAt = performance.now();
    await faulted;
    const burstEndMs = burstEndedAt - faultEndedAt;

    expect(recoveryMs).toBeLessThan(60_000);

    const answers: Record<string, number> = {};
    for (const reply of replies) {
      const kind = reply.body["success"] === true ? "success" : kindOf(reply);
      answers[kind] = (answers[kind] ?? 0) + 1;
    }
    // Every answer is one of the true ones, and a success is on the ledger.
    for (const [index, reply] of replies.entries()) {
      const payment = payments[index] as Payment;
      if (reply.body["success"] === true) {
        expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
        continue;
      }
      expect(reply.status).toBe(200);
      expect(TRUE_FAILURES).toContain(kindOf(reply));
      if (kindOf(reply) === "the settlement store is unavailable" || kindOf(reply) === "FEE_BUDGET_UNAVAILABLE") {
        if (kindOf(reply) !== "FEE_BUDGET_UNAVAILABLE") expect(String(reply.body["errorMessage"])).toContain("nothing was signed or submitted");
        expect(await service.store.settlements.get(settlementKeyOfPayment(payment))).toBeNull();
      }
    }

    // Every record reaches its final state through the reconciler.
    const allFinalMs = await untilNoneOpen(service.store.executor, faultEndedAt);
    for (const [index, payment] of payments.entries()) {
      const record = await service.store.settlements.get(settlementKeyOfPayment(payment));
      const paid = await usdcOf(ledger, payment.actors.payTo.address);
      // SECURITY: never paid twice; a record says exactly what the ledger did.
      expect(paid === 0n || paid === DEFAULT_AMOUNT).toBe(true);
      if (record) expect(record.state).toBe(paid === DEFAULT_AMOUNT ? "settled" : "failed");
      else expect(paid).toBe(0n);
      if (replies[index]?.body["success"] === true) expect(record?.signature).toBe(String(replies[index]?.body["transaction"]));
    }

    // No settlement lost: every client that got a failure retries the same transaction once.
    let retriesSettled = 0;
    for (const [index, reply] of replies.entries()) {
      if (reply.body["success"] === true) continue;
      const payment = payments[index] as Payment;
      const retry = await settle(payment);
      expect(retry.body["success"]).toBe(true);
      retriesSettled += 1;
      expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    }
    const signatures = proxy.sentSignatures();
    // Resends carry the same signature; every distinct transaction sent is one of the payments.
    expect(new Set(signatures).size).toBe(count + 1);
    return { settlements: count, answers, recoveryMs, burstEndMs, allFinalMs, retriesSettled, sendsForwarded: signatures.length };
  } finally {
    await service.dispose();
    await proxy.stop();
  }
}

function kindOf(reply: JsonReply): string {
  if (reply.body["errorReason"] === "FEE_BUDGET_UNAVAILABLE") return "FEE_BUDGET_UNAVAILABLE";
  const message = String(reply.body["errorMessage"] ?? reply.body["error"] ?? reply.status);
  return TRUE_FAILURES.find((kind) => message.startsWith(kind)) ?? message.slice(0, 120);
}

async function untilNoneOpen(db: Readonly<{ query(text: string): Promise<readonly Readonly<Record<string, unknown>>[]> }>, since: number): Promise<number> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    try {
      const [row] = await db.query("SELECT count(*)::int AS open FROM settlements WHERE state IN ('pending', 'submitted')");
      if (Number(row?.["open"]) === 0) return performance.now() - since;
    } catch {
      // The database may still be coming back.
    }
    if (performance.now() > deadline) throw new Error("records still open 60 s after the fault");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
