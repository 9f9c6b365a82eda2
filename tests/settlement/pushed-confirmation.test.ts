import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSigner, type Signature } from "@solana/kit";
import { fakeLedger } from "../../fixtures/fake-ledger.ts";
import { startLedgerProxy, statusesNotFound } from "../../fixtures/ledger-proxy.ts";
import { DEFAULT_AMOUNT, fundedPayment, usdcOf } from "../../fixtures/payments.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import type { SignatureStatus } from "../../src/application/ports/ledger.ts";
import type { SignatureNotice, SignatureWatch } from "../../src/application/ports/signature-watch.ts";
import { SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { createBatchedConfirmer } from "../../src/application/settlement/batched-confirmation.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createRpcSignatureWatch } from "../../src/infrastructure/ledger/rpc-signature-watch.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { startFaultRig } from "./support/fault-rig.ts";
import { postJson } from "./support/service-harness.ts";

/**
 * Pushed confirmations (signatureSubscribe): a settlement learns that its transaction landed from
 * the node's notice instead of a status poll (docs/performance.md, issue 26), and polling still
 * decides whenever the notice does not come.
 */

/** A hand-written watch: the test pushes notices; every watch and stop is recorded. */
function manualWatch() {
  const listeners = new Map<string, (notice: SignatureNotice) => void>();
  const stopped: string[] = [];
  const watch: SignatureWatch = {
    watch(signature, notice) {
      listeners.set(signature, notice);
      return () => {
        stopped.push(signature);
        listeners.delete(signature);
      };
    },
    close() {},
  };
  return { watch, stopped, push: (signature: string, notice: SignatureNotice) => listeners.get(signature)?.(notice), watching: () => [...listeners.keys()] };
}

function countingLedger(status: (signature: string) => SignatureStatus | null) {
  const asked: string[][] = [];
  const ledger = fakeLedger(
    {
      async getSignatureStatuses(signatures) {
        asked.push([...signatures]);
        return signatures.map(status);
      },
      getBlockHeight: async () => 100n,
    },
    "confirmation",
  );
  return { ledger, asked };
}

const sig = (n: number) => `sig${n}` as Signature;
const policy = { pollIntervalMs: 50, maxWaitMs: 2_000 };
const failedOnChain: SignatureStatus = { slot: 7n, confirmationStatus: "confirmed", err: "custom program error: 0x1" };

describe("batched confirmation with a signature watch (hand-written fakes)", () => {
  test("a notice pushed before the send returned confirms without any status call; one pushed later settles the waiter before its poll", async () => {
    const fake = countingLedger(() => null); // the poll would never see them
    const manual = manualWatch();
    const confirm = createBatchedConfirmer(fake.ledger, policy, Date.now, manual.watch);

    const stopEarly = confirm.expect(sig(1));
    manual.push(sig(1), { slot: 5n, failed: false });
    expect(await confirm(sig(1), 1_000n)).toEqual({ kind: "confirmed", slot: 5n });
    expect(fake.asked).toEqual([]);
    stopEarly();

    confirm.expect(sig(2));
    const waiting = confirm(sig(2), 1_000n);
    manual.push(sig(2), { slot: 6n, failed: false });
    expect(await waiting).toEqual({ kind: "confirmed", slot: 6n });
    expect(manual.stopped).toEqual([sig(1)]);
  });

  test("a notice that the transaction failed is not the outcome: the status read gives it, with the on-chain error", async () => {
    const fake = countingLedger((s) => (s === sig(3) ? failedOnChain : null));
    const manual = manualWatch();
    const confirm = createBatchedConfirmer(fake.ledger, policy, Date.now, manual.watch);

    confirm.expect(sig(3));
    manual.push(sig(3), { slot: 7n, failed: true });
    expect(await confirm(sig(3), 1_000n)).toEqual({ kind: "failed", error: "custom program error: 0x1", slot: 7n });
    expect(fake.asked.flat()).toContain(sig(3));
  });

  test("a watch that says nothing changes nothing: polling confirms", async () => {
    const confirmedStatus: SignatureStatus = { slot: 9n, confirmationStatus: "confirmed", err: null };
    const fake = countingLedger(() => confirmedStatus);
    const manual = manualWatch();
    const confirm = createBatchedConfirmer(fake.ledger, policy, Date.now, manual.watch);

    confirm.expect(sig(4));
    expect(await confirm(sig(4), 1_000n)).toEqual({ kind: "confirmed", slot: 9n });
    expect(fake.asked).toEqual([[sig(4)]]);
    expect(manual.watching()).toEqual([sig(4)]); // stopped by its caller (settle-transaction), not here
  });
});

describe("the WebSocket watch against the embedded ledger's pubsub (real sockets)", () => {
  test("a watched send is told once it lands; a stopped watch is not; a node without pubsub leaves every watch silent", async () => {
    const ledger = createLocalLedger();
    const proxy = startLedgerProxy(ledger, { pubsub: true });
    const bare = startLedgerProxy(ledger);
    const watch = createRpcSignatureWatch({ url: proxy.url.replace(/^http/, "ws"), logger: silentLogger });
    const silent = createRpcSignatureWatch({ url: bare.url.replace(/^http/, "ws"), logger: silentLogger });
    try {
      const { address } = await generateKeyPairSigner();
      const [told, stoppedOne, unheard] = [[] as SignatureNotice[], [] as SignatureNotice[], [] as SignatureNotice[]];
      const airdropped = await ledger.airdrop(address, 1_000_000_000n); // already landed: told at once
      watch.watch(airdropped, (n) => told.push(n));
      const stop = watch.watch(sig(99), (n) => stoppedOne.push(n));
      silent.watch(airdropped, (n) => unheard.push(n));
      stop();
      await waitFor(() => told.length === 1);
      expect(told[0]?.failed).toBe(false);
      expect(told[0]?.slot).toBe(ledger.getTransaction(airdropped)?.slot);
      expect(stoppedOne).toEqual([]);
      await Bun.sleep(100);
      expect(unheard).toEqual([]);
    } finally {
      watch.close();
      silent.close();
      await proxy.stop();
      await bare.stop();
    }
  });
});

describe("settlements with pushed confirmations (settlement service, embedded ledger over JSON-RPC with its pubsub, PGlite)", () => {
  let store: OpenedStore;

  beforeAll(async () => {
    store = await openStore({ inMemory: true });
  }, 30_000);

  afterAll(async () => {
    await store.close();
  });

  test("30 concurrent settlements confirm from the node's notices alone (every status read answers 'not found'): every one lands and is recorded settled", async () => {
    const rig = await startFaultRig({ store, rpcTimeoutMs: 10_000, signatureWatch: "pubsub" });
    try {
      // The first settlement opens the WebSocket; until it is open a watch waits (and polling may win).
      const first = await fundedPayment(rig.ledger, rig.feePayer);
      expect((await postJson(rig.app, "/settle", first.body)).body["success"]).toBe(true);
      // From here a status read can confirm nothing: a settlement that confirms was told by the
      // node. (Counting status calls instead depended on each notice beating the 5 ms first look,
      // which a loaded CI machine did not always let it do.)
      rig.proxy.setRule(async (call, forward) => (call.method === "getSignatureStatuses" ? statusesNotFound(call) : forward()));
      const payments = await Promise.all(Array.from({ length: 30 }, () => fundedPayment(rig.ledger, rig.feePayer)));

      const replies = await Promise.all(payments.map((p) => postJson(rig.app, "/settle", p.body)));

      expect(replies.filter((r) => r.body["success"] === true)).toHaveLength(30);
      for (const payment of payments) expect(await usdcOf(rig.ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
      expect(rig.proxy.forwarded("sendTransaction")).toBe(31);
      for (const reply of replies) expect((await store.settlements.findBySignature(SOLANA_DEVNET, String(reply.body["transaction"])))?.state).toBe("settled");
    } finally {
      await rig.close();
    }
  });

  test("against a node without pubsub the same settlements confirm by polling", async () => {
    const rig = await startFaultRig({ store, rpcTimeoutMs: 10_000, signatureWatch: "no-pubsub" });
    try {
      const payments = await Promise.all(Array.from({ length: 10 }, () => fundedPayment(rig.ledger, rig.feePayer)));

      const replies = await Promise.all(payments.map((p) => postJson(rig.app, "/settle", p.body)));

      expect(replies.filter((r) => r.body["success"] === true)).toHaveLength(10);
      expect(rig.proxy.received("getSignatureStatuses")).toBeGreaterThan(0);
    } finally {
      await rig.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(5);
  }
}
