import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { feeBudgetSpent } from "./support/fee-budget-spent.ts";
import type { SettlementStore } from "../../src/application/ports/settlement-store.ts";
import { CodedError } from "../../src/domain/coded-error.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { type FaultRig, startFaultRig } from "./support/fault-rig.ts";
import { DEFAULT_AMOUNT, fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { extensionsOf, postJson } from "./support/service-harness.ts";

/** Past the 150-block blockhash window at 400 ms a slot, plus margin. */
const BEYOND_BLOCKHASH_LIFETIME_MS = 65_000;
const BUDGET = { perPayerLamports: 1_000_000n, perFeePayerLamports: 1_000_000_000n, windowSeconds: 3600 };

type Faults = { lookup: number; claimLostAfterCommit: number; claimLost: number; finishLost: number };

/**
 * The real store, failing on demand the way a dropped connection does (a STORE_UNAVAILABLE CodedError): before a
 * statement ran, or after a claim committed but before its answer came back.
 */
function faultyStore(inner: SettlementStore, faults: Faults): SettlementStore {
  const lost = () => new CodedError("STORE_UNAVAILABLE", "settlement store unavailable: the connection was closed (test)");
  return Object.freeze({
    ...inner,
    async findExisting(key, paymentId) {
      if (faults.lookup > 0 && faults.lookup--) throw lost();
      return inner.findExisting(key, paymentId);
    },
    async claim(draft) {
      if (faults.claimLost > 0 && faults.claimLost--) throw lost();
      const result = await inner.claim(draft);
      if (faults.claimLostAfterCommit > 0 && faults.claimLostAfterCommit--) throw lost();
      return result;
    },
    async finish(key, signature, outcome) {
      if (faults.finishLost > 0 && faults.finishLost--) throw lost();
      return inner.finish(key, signature, outcome);
    },
  });
}

let store: OpenedStore;
let rig: FaultRig;
const faults: Faults = { lookup: 0, claimLostAfterCommit: 0, claimLost: 0, finishLost: 0 };

beforeAll(async () => {
  store = await openStore({ inMemory: true });
  rig = await startFaultRig({ store, wrapStore: (inner) => faultyStore(inner, faults), feeBudget: BUDGET });
}, 30_000);

afterAll(async () => {
  await rig.close();
  await store.close();
});

afterEach(() => Object.assign(faults, { lookup: 0, claimLostAfterCommit: 0, claimLost: 0, finishLost: 0 }));

/** Lamports charged to a payer's fee budget in any window. */
async function charged(payer: string): Promise<bigint> {
  return feeBudgetSpent(store.executor, `payer:${payer}`);
}

describe("store faults during /settle (embedded ledger over JSON-RPC, real RPC adapter, PGlite behind a wrapper that loses connections on demand)", () => {
  test("store unavailable at the idempotency check: SETTLEMENT_FAILED saying nothing was signed or sent; no signature, no record, the fee given back", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const signatures = rig.signatures();
    faults.lookup = 1;

    const reply = await postJson(rig.app, "/settle", payment.body);

    expect(reply.body["errorReason"]).toBe("SETTLEMENT_FAILED");
    expect(String(reply.body["errorMessage"])).toContain("nothing was signed or submitted");
    expect(rig.signatures()).toBe(signatures);
    expect(await store.settlements.get(settlementKeyOfPayment(payment))).toBeNull();
    expect(await charged(payment.actors.payer.address)).toBe(0n);
    expect((await postJson(rig.app, "/settle", payment.body)).body["success"]).toBe(true);
  });

  test("claim committed but its answer lost: the request sends nothing and says to retry the same transaction; reconciliation sends the stored bytes; the retry replays it; one transfer", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const sends = rig.proxy.forwarded("sendTransaction");
    faults.claimLostAfterCommit = 1;

    const reply = await postJson(rig.app, "/settle", payment.body);

    expect(reply.body["errorReason"]).toBe("SETTLEMENT_FAILED");
    expect(String(reply.body["errorMessage"])).toContain("retry with the same transaction");
    expect(String(reply.body["errorMessage"])).toContain("do not build a new one");
    expect(rig.proxy.forwarded("sendTransaction")).toBe(sends);
    const open = await store.settlements.get(settlementKeyOfPayment(payment));
    expect(open?.state).toBe("pending");
    // The fee stays charged: the claim may be sent by recovery.
    expect(await charged(payment.actors.payer.address)).toBeGreaterThan(0n);

    expect(await rig.reconcile()).toMatchObject({ resent: 1 });
    expect(await rig.reconcile()).toMatchObject({ settled: 1 });
    const retry = await postJson(rig.app, "/settle", payment.body);
    expect(retry.body["success"]).toBe(true);
    expect(retry.body["transaction"]).toBe(open?.signature ?? "missing");
    expect(extensionsOf(retry)["replayed"]).toBe(true);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(sends + 1);
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  });

  test("claim lost before it committed: nothing recorded, nothing sent; the retry settles once", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const sends = rig.proxy.forwarded("sendTransaction");
    faults.claimLost = 1;

    const reply = await postJson(rig.app, "/settle", payment.body);

    expect(String(reply.body["errorMessage"])).toContain("retry with the same transaction");
    expect(await store.settlements.get(settlementKeyOfPayment(payment))).toBeNull();
    expect(rig.proxy.forwarded("sendTransaction")).toBe(sends);
    expect((await postJson(rig.app, "/settle", payment.body)).body["success"]).toBe(true);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(sends + 1);
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  });

  test("finish lost after confirmation: the client gets its success (true on the ledger), the record stays pending, reconciliation settles it without a resend", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    faults.finishLost = 1;

    const reply = await postJson(rig.app, "/settle", payment.body);

    expect(reply.body["success"]).toBe(true);
    expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    expect((await store.settlements.get(settlementKeyOfPayment(payment)))?.state).toBe("pending");
    const sends = rig.proxy.forwarded("sendTransaction");
    expect(await rig.reconcile()).toMatchObject({ settled: 1, resent: 0 });
    expect((await store.settlements.get(settlementKeyOfPayment(payment)))?.state).toBe("settled");
    expect(rig.proxy.forwarded("sendTransaction")).toBe(sends);
  });

  test("the record is judged first: a settled payment replays after its blockhash expired and its funds moved; an unfundable payment charges its payer's attempt, never the fee payer", async () => {
    const payment = await fundedPayment(rig.ledger, rig.feePayer);
    const first = await postJson(rig.app, "/settle", payment.body);
    expect(first.body["success"]).toBe(true);
    const feeCharged = await charged(payment.actors.payer.address);
    rig.clock.advance(BEYOND_BLOCKHASH_LIFETIME_MS);

    const replay = await postJson(rig.app, "/settle", payment.body);

    expect(replay.body["transaction"]).toBe(first.body["transaction"]);
    expect(extensionsOf(replay)["replayed"]).toBe(true);
    // A replay is answered from the record before anything is charged.
    expect(await charged(payment.actors.payer.address)).toBe(feeCharged);

    const feePayerSpent = await feeBudgetSpent(store.executor, `fee-payer:${rig.feePayer}`);
    const unfunded = await fundedPayment(rig.ledger, rig.feePayer, { fund: 0n });
    const refused = await postJson(rig.app, "/settle", unfunded.body);
    expect(refused.body["errorReason"]).toBe("INSUFFICIENT_FUNDS");
    // The refused attempt counts against its payer (bounding how often one payer may try), not the fee payer.
    expect(await charged(unfunded.actors.payer.address)).toBe(10_000n);
    expect(await feeBudgetSpent(store.executor, `fee-payer:${rig.feePayer}`)).toBe(feePayerSpent);
  });
});
