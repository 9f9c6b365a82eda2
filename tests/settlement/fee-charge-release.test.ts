/**
 * Issue 19.1: a fee-budget charge stands only for lamports really spent. The fault rig (the
 * embedded ledger over JSON-RPC through a fault-injecting proxy, the real RPC adapter, PGlite for
 * records and fee-budget counters, a manual ledger clock).
 */
import { feeBudgetSpent } from "./support/fee-budget-spent.ts";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Signature } from "@solana/kit";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { type FaultRig, startFaultRig } from "./support/fault-rig.ts";
import { type RpcCall, httpError } from "../../fixtures/ledger-proxy.ts";
import { type Payment, fundedPayment, settlementKeyOfPayment } from "../../fixtures/payments.ts";
import { postJson } from "./support/service-harness.ts";

/** Past the 150-block blockhash window at 400 ms a slot, plus margin. */
const BEYOND_BLOCKHASH_LIFETIME_MS = 65_000;
/** A day-long window, so the manual clock's 65-second step never crosses into the next one. */
const BUDGET = { perPayerLamports: 1_000_000n, perFeePayerLamports: 1_000_000_000n, windowSeconds: 86_400 };

let store: OpenedStore;
let rig: FaultRig;
let payment: Payment;

beforeAll(async () => {
  store = await openStore({ inMemory: true });
}, 30_000);
afterAll(() => store.close());
beforeEach(async () => {
  rig = await startFaultRig({ store, feeBudget: BUDGET });
  payment = await fundedPayment(rig.ledger, rig.feePayer);
});
afterEach(() => rig.close());

const payerSpent = () => feeBudgetSpent(store.executor, `payer:${payment.actors.payer.address}`);
const feePayerSpent = () => feeBudgetSpent(store.executor, `fee-payer:${rig.feePayer}`);
const settle = () => postJson(rig.app, "/settle", payment.body);
const recordOf = () => store.settlements.get(settlementKeyOfPayment(payment));

/** A node refusing the send outright (as when the blockhash expired between simulation and send). */
function refusal(call: RpcCall): Response {
  return Response.json({ jsonrpc: "2.0", id: call.id, error: { code: -32002, message: "Transaction simulation failed: Blockhash not found", data: { err: "BlockhashNotFound", logs: [] } } });
}

describe("fee charges stand only for real spend (fault rig: JSON-RPC proxy, PGlite counters)", () => {
  test("a landed settlement keeps exactly the fee the ledger charged, and the record names the charge", async () => {
    const feePayerBefore = await feePayerSpent();
    const lamportsBefore = rig.ledger.getBalance(rig.feePayer);
    expect((await settle()).body["success"]).toBe(true);
    const paid = lamportsBefore - rig.ledger.getBalance(rig.feePayer);
    expect(paid).toBe(10_000n);
    expect(await payerSpent()).toBe(paid);
    expect((await feePayerSpent()) - feePayerBefore).toBe(paid);
    const record = await recordOf();
    expect(record?.feeCharge).toMatchObject({ payer: payment.actors.payer.address, feePayer: rig.feePayer, lamports: paid });
    expect(rig.ledger.getTransaction(record?.signature as Signature)?.fee).toBe(paid);
  });

  test("a send the ledger refuses gives its charge back", async () => {
    const feePayerBefore = await feePayerSpent();
    rig.proxy.setRule(async (call, forward) => (call.method === "sendTransaction" ? refusal(call) : forward()));
    const reply = await settle();
    expect(reply.body).toMatchObject({ success: false, errorReason: "SETTLEMENT_FAILED" });
    expect((await recordOf())?.state).toBe("failed");
    expect(await payerSpent()).toBe(0n);
    expect(await feePayerSpent()).toBe(feePayerBefore);
  });

  test("an uncertain send that never lands: the charge stays while it might, and recovery gives it back once the blockhash expired", async () => {
    const feePayerBefore = await feePayerSpent();
    rig.proxy.setRule(async (call, forward) => {
      if (call.method !== "sendTransaction") return forward();
      await rig.proxy.goDown();
      return httpError(503);
    });
    expect(String((await settle()).body["errorMessage"])).toContain("will be reconciled");
    // Possibly sent: the charge stands until the ledger says otherwise.
    expect(await payerSpent()).toBe(10_000n);
    expect((await recordOf())?.feeCharge?.lamports).toBe(10_000n);

    rig.proxy.setRule(null);
    rig.proxy.comeUp();
    rig.clock.advance(BEYOND_BLOCKHASH_LIFETIME_MS);
    expect(await rig.reconcile()).toMatchObject({ failed: 1 });
    expect(await payerSpent()).toBe(0n);
    expect(await feePayerSpent()).toBe(feePayerBefore);
    // A second pass (another replica) finds the record final and gives nothing back twice.
    await rig.reconcile();
    expect(await payerSpent()).toBe(0n);
  });

  test("an uncertain send that did land: recovery settles it and the charge stays", async () => {
    rig.proxy.setRule(async (call, forward) => {
      if (call.method !== "sendTransaction") return forward();
      // The node took it, then the answer was lost.
      await forward();
      return httpError(503);
    });
    const reply = await settle();
    rig.proxy.setRule(null);
    if (reply.body["success"] !== true) expect(await rig.reconcile()).toMatchObject({ settled: 1 });
    expect((await recordOf())?.state).toBe("settled");
    expect(await payerSpent()).toBe(10_000n);
  });
});
