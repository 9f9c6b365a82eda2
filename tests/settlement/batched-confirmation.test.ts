import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeLedger } from "../../fixtures/fake-ledger.ts";
import type { Signature } from "@solana/kit";
import { LedgerError, type SignatureStatus } from "../../src/application/ports/ledger.ts";
import { createBatchedConfirmer } from "../../src/application/settlement/batched-confirmation.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { delayConfirmation } from "../../bench/settle-delay.ts";
import { startFaultRig } from "./support/fault-rig.ts";
import { DEFAULT_AMOUNT, fundedPayment, usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "./support/service-harness.ts";

type StatusScript = (signature: string, poll: number) => SignatureStatus | null | Error;

/** Hand-written fake Ledger: statuses and height follow a script; every call is recorded. */
function scriptedLedger(script: StatusScript, height: () => bigint = () => 100n) {
  const batches: string[][] = [];
  let heightReads = 0;
  const ledger = fakeLedger({
    async getSignatureStatuses(signatures) {
      batches.push([...signatures]);
      const poll = batches.length;
      const answers = signatures.map((s) => script(s, poll));
      const failure = answers.find((a): a is Error => a instanceof Error);
      if (failure) throw failure;
      return answers as (SignatureStatus | null)[];
    },
    async getBlockHeight() {
      heightReads += 1;
      return height();
    },
  }, "confirmation");
  return { ledger, batches, heightReads: () => heightReads };
}

const confirmed: SignatureStatus = { slot: 1n, confirmationStatus: "confirmed", err: null };
const processed: SignatureStatus = { slot: 1n, confirmationStatus: "processed", err: null };
const sig = (n: number) => `sig${n}` as Signature;
const policy = { pollIntervalMs: 5, maxWaitMs: 2_000 };

/** Yields to timers until `condition` holds (the poller runs on real timers; its clock is the test's). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await Bun.sleep(1);
}

describe("batched confirmation (hand-written fake ledger)", () => {
  test("signatures submitted together are looked up in one getSignatureStatuses call", async () => {
    const fake = scriptedLedger(() => confirmed);
    const confirm = createBatchedConfirmer(fake.ledger, policy);

    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => confirm(sig(i), 1_000n)));

    expect(outcomes.every((o) => o.kind === "confirmed")).toBe(true);
    expect(fake.batches).toHaveLength(1);
    expect(fake.batches[0]).toHaveLength(50);
  });

  test("each signature gets its own outcome: confirmed after processed, failed with the on-chain error, expired after one last look", async () => {
    const fake = scriptedLedger(
      (signature, poll) => {
        if (signature === "sig1") return poll < 3 ? processed : confirmed;
        if (signature === "sig2") return { slot: 1n, confirmationStatus: "confirmed", err: '{"InstructionError":[2,{"Custom":1}]}' };
        return null;
      },
      () => 200n,
    );
    const confirm = createBatchedConfirmer(fake.ledger, policy);

    const [one, two, three] = await Promise.all([confirm(sig(1), 1_000n), confirm(sig(2), 1_000n), confirm(sig(3), 150n)]);

    expect(one).toEqual({ kind: "confirmed", slot: 1n });
    expect(two).toEqual({ kind: "failed", error: '{"InstructionError":[2,{"Custom":1}]}', slot: 1n });
    expect(three).toEqual({ kind: "expired" });
    // sig3 was asked about once more, alone, after its blockhash had passed.
    expect(fake.batches.some((b) => b.length === 1 && b[0] === "sig3")).toBe(true);
  });

  test("ledger errors are retried; past maxWaitMs the outcome is unknown with the last problem", async () => {
    const fake = scriptedLedger(() => new LedgerError("unavailable", "getSignatureStatuses: HTTP error 503"));
    const confirm = createBatchedConfirmer(fake.ledger, { pollIntervalMs: 5, maxWaitMs: 60 });

    const outcome = await confirm(sig(1), 1_000n);

    expect(outcome).toEqual({ kind: "unknown", reason: "getSignatureStatuses: HTTP error 503" });
    expect(fake.batches.length).toBeGreaterThan(1);
  });

  test("a first look asks only about signatures not looked at yet; those still waiting are asked again at the full poll", async () => {
    let time = 0;
    const fake = scriptedLedger((signature, poll) => (signature === "sig1" && poll < 3 ? processed : confirmed));
    const confirm = createBatchedConfirmer(fake.ledger, { pollIntervalMs: 60_000, maxWaitMs: 600_000 }, () => time);

    const first = confirm(sig(1), 1_000n);
    await until(() => fake.batches.length === 1);
    // sig1 is only processed; a new send is looked at alone, without re-asking about sig1.
    const second = await confirm(sig(2), 1_000n);
    expect(second).toEqual({ kind: "confirmed", slot: 1n });
    expect(fake.batches).toEqual([["sig1"], ["sig2"]]);

    // Once the interval has passed, the next poll is a full one and asks about everything in flight.
    time = 60_000;
    const [one, three] = await Promise.all([first, confirm(sig(3), 1_000n)]);
    expect(one).toEqual({ kind: "confirmed", slot: 1n });
    expect(three).toEqual({ kind: "confirmed", slot: 1n });
    expect(fake.batches[2]).toEqual(["sig1", "sig3"]);
  });

  test("a signature not visible at its first look costs no block-height read; the full poll checks its expiry", async () => {
    let time = 0;
    const fake = scriptedLedger(() => null, () => 2_000n);
    const confirm = createBatchedConfirmer(fake.ledger, { pollIntervalMs: 60_000, maxWaitMs: 600_000 }, () => time);

    const outcome = confirm(sig(1), 1_000n);
    await until(() => fake.batches.length === 1);
    expect(fake.heightReads()).toBe(0);

    time = 60_000;
    // Any new send wakes the poller; the interval has passed, so its poll is the full one.
    void confirm(sig(2), 5_000n);
    expect(await outcome).toEqual({ kind: "expired" });
    expect(fake.heightReads()).toBe(1);
  });

  test("a status asked with the send decides at once when the ledger confirmed it; otherwise the polls go on; after 64 misses in a row only 1 send in 64 is asked", async () => {
    const fake = scriptedLedger(() => confirmed);
    const withSend: Signature[] = [];
    let confirmsWithSend = true;
    const ledger = { ...fake.ledger, lookAfterSends: async (signature: Signature) => (withSend.push(signature), confirmsWithSend ? confirmed : null) };
    const confirmer = createBatchedConfirmer(ledger, policy);

    expect(await confirmer(sig(1), 1_000n, confirmer.lookWithSend(sig(1)))).toEqual({ kind: "confirmed", slot: 1n });
    expect(fake.batches).toHaveLength(0);

    confirmsWithSend = false;
    expect(await confirmer(sig(2), 1_000n, confirmer.lookWithSend(sig(2)))).toEqual({ kind: "confirmed", slot: 1n });
    expect(fake.batches).toEqual([["sig2"]]);

    for (let n = 3; n <= 65; n++) await confirmer(sig(n), 1_000n, confirmer.lookWithSend(sig(n)));
    expect(withSend).toHaveLength(65); // 64 misses in a row (sig2..sig65)
    const skipped = Array.from({ length: 63 }, (_, i) => confirmer.lookWithSend(sig(100 + i)));
    expect(skipped.every((look) => look === undefined)).toBe(true);
    confirmsWithSend = true;
    const probe = confirmer.lookWithSend(sig(200));
    expect(probe).toBeDefined();
    expect(await confirmer(sig(200), 1_000n, probe)).toEqual({ kind: "confirmed", slot: 1n });
    // A hit ends the patience: the next send is asked again.
    expect(confirmer.lookWithSend(sig(201))).toBeDefined();
  });

  test("a failed status asked with the send is the on-chain failure; a ledger error there leaves the polls to decide and stops the looks at once", async () => {
    const fake = scriptedLedger(() => confirmed);
    const failedOnChain: SignatureStatus = { slot: 2n, confirmationStatus: "confirmed", err: '{"InstructionError":[0,{"Custom":1}]}' };
    let answer: () => Promise<SignatureStatus | null> = async () => failedOnChain;
    const confirmer = createBatchedConfirmer({ ...fake.ledger, lookAfterSends: () => answer() }, policy);

    expect(await confirmer(sig(1), 1_000n, confirmer.lookWithSend(sig(1)))).toEqual({ kind: "failed", error: failedOnChain.err as string, slot: 2n });
    answer = () => Promise.reject(new LedgerError("unavailable", "getSignatureStatuses: HTTP error 503"));
    expect(await confirmer(sig(2), 1_000n, confirmer.lookWithSend(sig(2)))).toEqual({ kind: "confirmed", slot: 1n });
    expect(fake.batches).toEqual([["sig2"]]);
    // A failed look may have failed its sends' batch: the next 63 sends are not asked with.
    expect(Array.from({ length: 63 }, (_, i) => confirmer.lookWithSend(sig(10 + i))).every((look) => look === undefined)).toBe(true);
    const probe = confirmer.lookWithSend(sig(99));
    expect(probe).toBeDefined();
    await probe?.catch(() => null);
  });

  test("a ledger without looks with the send gets none", () => {
    expect(createBatchedConfirmer(scriptedLedger(() => confirmed).ledger, policy).lookWithSend(sig(1))).toBeUndefined();
  });

  test("a ledger failure at a first look is asked again at the full poll, not at the first-look pace", async () => {
    let time = 0;
    let failing = true;
    const fake = scriptedLedger(() => (failing ? new LedgerError("unavailable", "getSignatureStatuses: HTTP error 503") : confirmed));
    const confirm = createBatchedConfirmer(fake.ledger, { pollIntervalMs: 60_000, maxWaitMs: 600_000 }, () => time);

    const outcome = confirm(sig(1), 1_000n);
    await until(() => fake.batches.length === 1);
    await Bun.sleep(50);
    expect(fake.batches).toHaveLength(1);

    failing = false;
    time = 60_000;
    void confirm(sig(2), 1_000n);
    expect(await outcome).toEqual({ kind: "confirmed", slot: 1n });
  });

  test("a bug (not a LedgerError) rejects the waiters instead of being retried as a ledger fault", async () => {
    const fake = scriptedLedger(() => new TypeError("bug"));
    const confirm = createBatchedConfirmer(fake.ledger, policy);

    await expect(confirm(sig(1), 1_000n)).rejects.toThrow("bug");
  });
});

describe("batched confirmation in the service (settlement service, embedded ledger over JSON-RPC, confirmation visible 300 ms after send, PGlite)", () => {
  let store: OpenedStore;

  beforeAll(async () => {
    store = await openStore({ inMemory: true });
  }, 30_000);

  afterAll(async () => {
    await store.close();
  });

  test("60 concurrent distinct settlements all settle with fewer status calls than settlements", async () => {
    // No fault here: a generous RPC timeout, so a loaded machine cannot fail a settlement.
    const rig = await startFaultRig({ store, rpcTimeoutMs: 10_000 });
    try {
      rig.proxy.setRule(delayConfirmation(300));
      const payments = await Promise.all(Array.from({ length: 60 }, () => fundedPayment(rig.ledger, rig.feePayer)));

      const replies = await Promise.all(payments.map((p) => postJson(rig.app, "/settle", p.body)));

      expect(replies.filter((r) => r.body["success"] === true)).toHaveLength(60);
      for (const payment of payments) expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
      expect(rig.proxy.forwarded("sendTransaction")).toBe(60);
      // Polled per settlement, every one would need at least one status call (two or more with a 300 ms delay).
      expect(rig.proxy.received("getSignatureStatuses")).toBeLessThan(60);
    } finally {
      await rig.close();
    }
  });
});
