// Two facilitators, two ledgers, one PostgreSQL database (issue 20, item 1). Facilitator A runs on
// an embedded ledger that presents devnet; facilitator B on a second embedded ledger that presents
// its own, seed-derived genesis hash, with NETWORK set to the CAIP-2 id that hash names. Both reach
// their ledger over JSON-RPC through a proxy, as the production shape reaches a ledger process.
// Before the fix, A's reconciler read B's open record, found no such signature on its own ledger,
// saw its block height past the record's last valid height and failed a payment that had landed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { address, getBase58Decoder } from "@solana/kit";
import { createEmbeddedLedger } from "@x84/embedded-ledger";
import type { SettlementRecord } from "../../src/application/ports/settlement-store.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET, USDC_DECIMALS, networkOfGenesisHash } from "../../src/domain/networks.ts";
import { createLocalLedger, ledgerPortOf, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";
import { draft } from "../../fixtures/settlement-drafts.ts";
import { type ManualClock, manualClock } from "./support/fault-rig.ts";
import { type LedgerProxy, statusesNotFound, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { DEFAULT_AMOUNT, fundedPayment, newFeePayerKey, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { type TestService, postJson, startService } from "./support/service-harness.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

/** A second embedded ledger that does not pretend to be devnet: its genesis hash is derived from its seed. */
function ledgerOfItsOwnNetwork(clock: ManualClock): LocalLedger {
  const embedded = createEmbeddedLedger({ clock, mints: [{ address: address(DEVNET_USDC_MINT), decimals: USDC_DECIMALS }] });
  return Object.freeze({ ...embedded, ...ledgerPortOf(embedded) });
}

/** A valid signature no ledger knows. */
const unknownSignature = () => getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64)));

async function scrape(service: TestService): Promise<string> {
  return (await service.facilitatorApp.handle(new Request("http://facilitator.test/metrics"))).text();
}

/** `x402_reconciler_passes_total{outcome}` as the service exposes it. */
async function passes(service: TestService, outcome: "ok" | "error"): Promise<number> {
  const line = (await scrape(service)).split("\n").find((l) => l.startsWith(`x402_reconciler_passes_total{outcome="${outcome}"}`));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

/** Waits until `service` has made `more` further passes with `outcome` (the interval is 1 s). */
async function awaitPasses(service: TestService, outcome: "ok" | "error", more: number): Promise<void> {
  const target = (await passes(service, outcome)) + more;
  const deadline = Date.now() + 15_000;
  while ((await passes(service, outcome)) < target) {
    if (Date.now() > deadline) throw new Error(`fewer than ${more} ${outcome} reconciler passes in 15 s`);
    await Bun.sleep(100);
  }
}

(gate.run ? describe : describe.skip)("two facilitators on two ledgers share one PostgreSQL database (real PostgreSQL, two embedded ledgers over JSON-RPC)", () => {
  let database: TestDatabase;
  let store: OpenedStore;
  const clockA = manualClock();
  const clockB = manualClock();
  let ledgerA: LocalLedger;
  let ledgerB: LocalLedger;
  let networkB: string;
  const proxies: LedgerProxy[] = [];
  const services: TestService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url, maxConnections: 2 });
    ledgerA = createLocalLedger({ clock: clockA });
    ledgerB = ledgerOfItsOwnNetwork(clockB);
    networkB = networkOfGenesisHash(ledgerB.genesisHash());
  }, 30_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.dispose()));
    await Promise.all(proxies.map((p) => p.stop()));
    await store?.close();
    await database?.drop();
  });

  async function facilitatorOn(ledger: LocalLedger, env: Readonly<Record<string, string>> = {}) {
    const proxy = startLedgerProxy(ledger);
    proxies.push(proxy);
    const key = await newFeePayerKey();
    await ledger.airdrop(key.address, 10_000_000_000n);
    const baseEnv = { SOLANA_RPC_URL: proxy.url, DATABASE_URL: database.url, FEE_PAYER_PRIVATE_KEY: key.json, RECONCILE_INTERVAL_SECONDS: "1", ...env };
    return { proxy, key, env: baseEnv };
  }

  test("the two ledgers name different networks; each service starts only with the NETWORK its ledger's genesis hash names", async () => {
    expect(networkB).not.toBe(SOLANA_DEVNET);
    expect(await ledgerA.getGenesisHash()).toStartWith(SOLANA_DEVNET.slice("solana:".length));
    const b = await facilitatorOn(ledgerB);
    // NETWORK left at its default (devnet): the ledger says otherwise, so the service refuses to start.
    const refused = await startService(b.env).then(
      (service) => {
        services.push(service);
        return null;
      },
      (error: unknown) => error as { code?: string; detail?: unknown },
    );
    expect(refused?.code).toBe("CONFIGURATION_INVALID");
    expect(String(refused?.detail)).toContain(`NETWORK is ${SOLANA_DEVNET}, but the ledger's genesis hash ${ledgerB.genesisHash()} names ${networkB}`);
  }, 30_000);

  test("A's reconciler never touches B's landed payment while it is open; B settles it and the record is settled, never failed", async () => {
    const a = await facilitatorOn(ledgerA);
    const b = await facilitatorOn(ledgerB, { NETWORK: networkB });
    const serviceA = await startService(a.env);
    services.push(serviceA);
    const serviceB = await startService(b.env);
    services.push(serviceB);

    // A's own record, expired on A's ledger: A's reconciler must still do its job.
    const ownOfA = draft({ network: SOLANA_DEVNET, signature: unknownSignature(), wireTransaction: null, lastValidBlockHeight: 1n });
    await store.settlements.claim(ownOfA);

    // B sends the payment (it lands on B's ledger), then B's confirmation is held: the record stays open.
    let announceSent: () => void = () => {};
    const sent = new Promise<void>((resolve) => {
      announceSent = resolve;
    });
    let holding = true;
    b.proxy.setRule(async (call, forward) => {
      if (holding && call.method === "getSignatureStatuses") return statusesNotFound(call);
      const response = await forward();
      if (call.method === "sendTransaction") announceSent();
      return response;
    });
    const payment = await fundedPayment(ledgerB, b.key.address, { network: networkB });
    const answer = postJson(serviceB.facilitatorApp, "/settle", payment.body);
    await sent;
    const key = settlementKeyOfPayment(payment);
    const open = await store.settlements.get(key);
    expect(open).toMatchObject({ state: "pending", network: networkB });
    expect(await usdcOf(ledgerB, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);

    // A's ledger is now far past B's record's last valid block height; A's reconciler runs twice.
    clockA.advance(10 * 60_000);
    expect(await ledgerA.getBlockHeight()).toBeGreaterThan(open?.lastValidBlockHeight ?? 0n);
    await awaitPasses(serviceA, "ok", 2);

    expect((await store.settlements.get(ownOfA.key))?.state).toBe("failed");
    expect((await store.settlements.get(key))?.state).toBe("pending");

    holding = false;
    const reply = await answer;
    expect(reply.body["success"]).toBe(true);
    const settled: SettlementRecord | null = await store.settlements.get(key);
    expect(settled).toMatchObject({ state: "settled", network: networkB, error: null, attempts: 1 });
    expect(reply.body["transaction"]).toBe(settled?.signature ?? "missing");
    expect(reply.body["network"]).toBe(networkB);
  }, 60_000);

  test("a service whose ledger is down at start-up starts, and once the ledger answers with another network, recovery stays off and touches nothing", async () => {
    // Only the misconfigured service reconciles from here on.
    await Promise.all(services.splice(0).map((s) => s.dispose()));
    // B's network has an open record of its own (claimed by B, say, before a crash).
    const ofB = draft({ network: networkB, signature: unknownSignature(), wireTransaction: null, lastValidBlockHeight: 1n });
    await store.settlements.claim(ofB);
    // A devnet facilitator wrongly pointed at B's ledger, whose proxy is down while it boots.
    const wrong = await facilitatorOn(ledgerB);
    await wrong.proxy.goDown();
    const misconfigured = await startService(wrong.env);
    services.push(misconfigured);
    // A devnet record: the misconfigured reconciler would fail it (B's ledger knows no such signature) if it ran.
    const ofDevnet = draft({ network: SOLANA_DEVNET, signature: unknownSignature(), wireTransaction: null, lastValidBlockHeight: 1n });
    await store.settlements.claim(ofDevnet);
    await awaitPasses(misconfigured, "error", 1);

    wrong.proxy.comeUp();
    clockB.advance(10 * 60_000);
    const statusCallsBefore = wrong.proxy.received("getSignatureStatuses");
    await awaitPasses(misconfigured, "error", 2);
    expect(await passes(misconfigured, "ok")).toBe(0);
    expect(wrong.proxy.received("getGenesisHash")).toBeGreaterThanOrEqual(1);
    expect(wrong.proxy.received("getSignatureStatuses")).toBe(statusCallsBefore);
    expect((await store.settlements.get(ofDevnet.key))?.state).toBe("pending");
    expect((await store.settlements.get(ofB.key))?.state).toBe("pending");
  }, 60_000);
});
