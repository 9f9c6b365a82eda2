import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { type FaultRig, RIG_RPC_TIMEOUT_MS, startFaultRig } from "./support/fault-rig.ts";
import { type RpcCall, delayed, firstSignature, httpError, rpcResult } from "../../fixtures/ledger-proxy.ts";
import { DEFAULT_AMOUNT, type Payment, fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { extensionsOf, postJson } from "./support/service-harness.ts";

/** Past the 150-block blockhash window at 400 ms a slot, plus margin. */
const BEYOND_BLOCKHASH_LIFETIME_MS = 65_000;

let store: OpenedStore;
let rig: FaultRig;
let payment: Payment;

// One in-memory PGlite for the file; every test pays with fresh keys, so its records are its own.
beforeAll(async () => {
  store = await openStore({ inMemory: true });
}, 30_000);

afterAll(async () => {
  await store.close();
});

beforeEach(async () => {
  rig = await startFaultRig({ store });
  payment = await fundedPayment(rig.ledger, rig.feePayer);
});

afterEach(async () => {
  await rig.close();
});

const settle = () => postJson(rig.app, "/settle", payment.body);
const recordOf = () => rig.store.settlements.get(settlementKeyOfPayment(payment));
const paidTo = () => usdcOf(rig.ledger, payment.actors.payTo.address);

describe("ledger faults during /settle (embedded ledger over JSON-RPC behind a fault-injecting proxy, real RPC adapter, PGlite, manual ledger clock)", () => {
  test("RPC down (connection refused) before anything is sent: SETTLEMENT_FAILED naming the ledger, no record, nothing sent; settles once it is back", async () => {
    await rig.proxy.goDown();

    const reply = await settle();

    expect(reply.status).toBe(200);
    expect(reply.body["success"]).toBe(false);
    expect(reply.body["transaction"]).toBe("");
    expect(reply.body["network"]).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(reply.body["errorReason"]).toBe("SETTLEMENT_FAILED");
    expect(String(reply.body["errorMessage"])).toContain("ledger is unavailable");
    expect(String(reply.body["errorMessage"])).toContain("nothing was submitted");
    expect(await recordOf()).toBeNull();
    expect(await paidTo()).toBe(0n);

    rig.proxy.comeUp();
    const retry = await settle();
    expect(retry.body["success"]).toBe(true);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(1);
    expect(await paidTo()).toBe(DEFAULT_AMOUNT);
  });

  test("RPC goes down at submission: answer says it will be reconciled, record stays pending (possibly sent); reconciliation resends the same bytes once and settles", async () => {
    rig.proxy.setRule(async (call, forward) => {
      if (call.method !== "sendTransaction") return forward();
      await rig.proxy.goDown();
      return httpError(503);
    });

    const reply = await settle();

    expect(reply.body["success"]).toBe(false);
    expect(reply.body["errorReason"]).toBe("SETTLEMENT_FAILED");
    expect(String(reply.body["errorMessage"])).toContain("will be reconciled");
    const open = await recordOf();
    expect(open?.state).toBe("pending");
    expect(rig.proxy.forwarded("sendTransaction")).toBe(0);
    expect(await paidTo()).toBe(0n);

    rig.proxy.setRule(null);
    rig.proxy.comeUp();
    const first = await rig.reconcile();
    expect(first).toMatchObject({ examined: 1, resent: 1, open: 1 });
    const second = await rig.reconcile();
    expect(second).toMatchObject({ examined: 1, settled: 1 });

    expect(rig.proxy.sentSignatures()).toEqual([open?.signature ?? "missing"]);
    expect((await recordOf())?.state).toBe("settled");
    expect(await paidTo()).toBe(DEFAULT_AMOUNT);
    const replay = await settle();
    expect(replay.body["transaction"]).toBe(open?.signature ?? "missing");
    expect(extensionsOf(replay)["replayed"]).toBe(true);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(1);
  });

  test("RPC down at submission until the blockhash expires: reconciliation fails the record (it can never land), nothing moved, retry says expired", async () => {
    rig.proxy.setRule(async (call, forward) => {
      if (call.method !== "sendTransaction") return forward();
      await rig.proxy.goDown();
      return httpError(503);
    });
    const reply = await settle();
    expect(String(reply.body["errorMessage"])).toContain("will be reconciled");

    rig.proxy.setRule(null);
    rig.proxy.comeUp();
    rig.clock.advance(BEYOND_BLOCKHASH_LIFETIME_MS);
    expect(await rig.reconcile()).toMatchObject({ examined: 1, failed: 1, resent: 0 });

    const record = await recordOf();
    expect(record?.state).toBe("failed");
    expect(record?.error).toContain("blockhash expired");
    expect(rig.proxy.forwarded("sendTransaction")).toBe(0);
    expect(await paidTo()).toBe(0n);
    const retry = await settle();
    expect(retry.body["errorReason"]).toBe("BLOCKHASH_EXPIRED");
  });

  test("5xx on the first send and on status reads: retried, settled, one transaction on the ledger", async () => {
    let failures = { sendTransaction: 1, getSignatureStatuses: 3 };
    rig.proxy.setRule(async (call, forward) => {
      if (call.method === "sendTransaction" && failures.sendTransaction > 0) {
        failures = { ...failures, sendTransaction: failures.sendTransaction - 1 };
        return httpError(502);
      }
      if (call.method === "getSignatureStatuses" && failures.getSignatureStatuses > 0) {
        failures = { ...failures, getSignatureStatuses: failures.getSignatureStatuses - 1 };
        return httpError(503);
      }
      return forward();
    });

    const reply = await settle();

    expect(reply.body["success"]).toBe(true);
    expect(rig.proxy.received("sendTransaction")).toBe(2);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(1);
    const record = await recordOf();
    expect(record?.state).toBe("settled");
    expect(record?.signature).toBe(String(reply.body["transaction"]));
    expect(await paidTo()).toBe(DEFAULT_AMOUNT);
  });

  test("timeout on a send that did land: the resend of the same signature is recognised, settled, paid once", async () => {
    let slowSends = 1;
    rig.proxy.setRule(async (call, forward) => {
      if (call.method === "sendTransaction" && slowSends > 0) {
        slowSends -= 1;
        // Forwarded (it lands) but answered after the client gave up.
        const answer = await forward();
        return delayed(RIG_RPC_TIMEOUT_MS * 2, async () => answer);
      }
      return forward();
    });

    const reply = await settle();

    expect(reply.body["success"]).toBe(true);
    const sent = rig.proxy.sentSignatures();
    // The retry carried the identical bytes: the same signature, so the ledger cannot run it twice.
    expect(sent.length).toBe(2);
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).toBe(String(reply.body["transaction"]));
    expect((await recordOf())?.state).toBe("settled");
    expect(await paidTo()).toBe(DEFAULT_AMOUNT);
    expect(await usdcOf(rig.ledger, payment.actors.payer.address)).toBe(0n);
  });

  test("confirmation never arrives (the node drops the transaction): failed once the blockhash expires, nothing moved, a retry is refused as expired", async () => {
    let expired = false;
    rig.proxy.setRule(async (call: RpcCall, forward) => {
      // Accepted with the right signature but never forwarded: the transaction is lost.
      if (call.method === "sendTransaction") return rpcResult(call, firstSignature(call.params[0]));
      if (call.method === "getSignatureStatuses" && !expired) {
        expired = true;
        rig.clock.advance(BEYOND_BLOCKHASH_LIFETIME_MS);
      }
      return forward();
    });

    const reply = await settle();

    expect(reply.body["success"]).toBe(false);
    expect(reply.body["errorReason"]).toBe("SETTLEMENT_FAILED");
    expect(String(reply.body["errorMessage"])).toContain("blockhash expired");
    const record = await recordOf();
    expect(record?.state).toBe("failed");
    expect(record?.error).toContain("blockhash expired");
    expect(await paidTo()).toBe(0n);

    const retry = await settle();
    expect(retry.body["success"]).toBe(false);
    expect(retry.body["errorReason"]).toBe("BLOCKHASH_EXPIRED");
    expect(rig.proxy.received("sendTransaction")).toBe(1);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(0);
    expect(await paidTo()).toBe(0n);
  });

  test("confirmation reads keep failing: bounded wait, answer says it will be reconciled, record stays pending, one send", async () => {
    rig.proxy.setRule(async (call, forward) => (call.method === "getSignatureStatuses" ? httpError(503) : forward()));

    const reply = await settle();

    expect(reply.body["success"]).toBe(false);
    expect(reply.body["errorReason"]).toBe("SETTLEMENT_FAILED");
    expect(String(reply.body["errorMessage"])).toContain("will be reconciled");
    expect((await recordOf())?.state).toBe("pending");
    // The status look that leaves with the send shares its batch, which this node fails as a
    // whole: the send's answer is lost with it and the same bytes go once more (deduplicated by
    // signature; the payee is paid once, below). The looks then stop (batched-confirmation.ts).
    const sends = rig.proxy.forwarded("sendTransaction");
    expect(sends).toBeGreaterThanOrEqual(1);
    expect(sends).toBeLessThanOrEqual(2);

    rig.proxy.setRule(null);
    expect(await rig.reconcile()).toMatchObject({ settled: 1, resent: 0 });
    expect((await recordOf())?.state).toBe("settled");
    expect(await paidTo()).toBe(DEFAULT_AMOUNT);
    expect(rig.proxy.forwarded("sendTransaction")).toBe(sends);
  });

  test("blockhash expired before settling: BLOCKHASH_EXPIRED, no record, nothing sent", async () => {
    rig.clock.advance(BEYOND_BLOCKHASH_LIFETIME_MS);

    const reply = await settle();

    expect(reply.status).toBe(200);
    expect(reply.body["success"]).toBe(false);
    expect(reply.body["transaction"]).toBe("");
    expect(reply.body["errorReason"]).toBe("BLOCKHASH_EXPIRED");
    expect(await recordOf()).toBeNull();
    expect(rig.proxy.received("sendTransaction")).toBe(0);
    expect(await paidTo()).toBe(0n);
  });
});
