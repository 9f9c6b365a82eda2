import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "@solana/kit";
import type { SettlementRecord } from "../../src/application/ports/settlement-store.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { type RunningService, spawnService } from "../walkthrough/support/spawn-service.ts";
import { type LedgerProxy, statusesNotFound, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { DEFAULT_AMOUNT, fundedPayment, newFeePayerKey, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

/** Polls `read` until `done` holds or the bound passes; returns the last value read. */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, boundMs = 15_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

(gate.run ? describe : describe.skip)(
  "crash between submission and persistence (real child process `bun src/main.ts`, SIGKILL, real PostgreSQL, embedded ledger behind a proxy)",
  () => {
    let database: TestDatabase;
    let ledger: LocalLedger;
    let proxy: LedgerProxy;
    let store: OpenedStore;
    let child: RunningService | null = null;
    const dataDir = mkdtempSync(join(tmpdir(), "settle-crash-"));

    beforeAll(async () => {
      database = await createTestDatabase();
      ledger = createLocalLedger();
      proxy = startLedgerProxy(ledger);
      store = await openStore({ databaseUrl: database.url, maxConnections: 2 });
    }, 30_000);

    afterAll(async () => {
      await child?.stop("SIGKILL");
      await store?.close();
      await proxy?.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test("after SIGKILL and restart, start-up reconciliation settles the record with the sent signature; a retry replays it; one transfer", async () => {
      const key = await newFeePayerKey();
      await ledger.airdrop(key.address, 10_000_000_000n);
      const env = {
        ROLE: "facilitator",
        FACILITATOR_PORT: "0",
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        SOLANA_RPC_URL: proxy.url,
        FEE_PAYER_PRIVATE_KEY: key.json,
        RECONCILE_INTERVAL_SECONDS: "3600",
      };
      const payment = await fundedPayment(ledger, key.address as Address);

      // Phase 1: the send is forwarded to the ledger (it lands), then confirmation stalls.
      let announceSent: () => void = () => {};
      const sent = new Promise<void>((resolve) => {
        announceSent = resolve;
      });
      proxy.setRule(async (call, forward) => {
        if (call.method === "getSignatureStatuses") return statusesNotFound(call);
        const response = await forward();
        if (call.method === "sendTransaction") announceSent();
        return response;
      });
      child = await spawnService(env);
      const facilitator = child.urls["facilitator"] ?? "";
      const inFlight = fetch(`${facilitator}/settle`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payment.body),
      }).catch((error: unknown) => error);
      await sent;
      expect(await child.stop("SIGKILL")).not.toBe(0);
      child = null;
      expect(await inFlight).toBeInstanceOf(Error);

      // The transfer landed, but the killed process never recorded the outcome.
      const [signature] = proxy.sentSignatures();
      expect(proxy.forwarded("sendTransaction")).toBe(1);
      expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
      const settlementKey = settlementKeyOfPayment(payment);
      const orphan = await store.settlements.get(settlementKey);
      expect(orphan?.signature).toBe(signature);
      expect(["pending", "submitted"]).toContain(orphan?.state ?? "missing");

      // Phase 2: a normal ledger again; the restarted process reconciles at start-up.
      proxy.setRule(null);
      child = await spawnService(env);
      const recovered = await waitFor<SettlementRecord | null>(
        () => store.settlements.get(settlementKey),
        (record) => record?.state === "settled",
      );
      expect(recovered?.state).toBe("settled");
      expect(recovered?.signature).toBe(signature);

      const retry = await fetch(`${child.urls["facilitator"]}/settle`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payment.body),
      });
      const body = (await retry.json()) as { success: boolean; transaction: string; extensions?: { replayed?: boolean } };
      expect(body.success).toBe(true);
      expect(body.transaction).toBe(signature ?? "missing");
      expect(body.extensions?.replayed).toBe(true);

      // One transfer only: the signature was never sent again and the payee was paid once.
      expect(proxy.forwarded("sendTransaction")).toBe(1);
      expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
      expect(await usdcOf(ledger, payment.actors.payer.address)).toBe(0n);
    }, 60_000);
  },
);
