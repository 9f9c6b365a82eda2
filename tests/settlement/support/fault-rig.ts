/**
 * The settlement service wired like service.ts, but with the knobs fault tests need: the
 * embedded ledger runs on a clock the test moves (so blockhash expiry takes no real minute),
 * it is reached over JSON-RPC through a fault-injecting proxy by the real RPC adapter with a
 * short timeout, and confirmation polls briefly. Store: PGlite in memory.
 */
import type { Address } from "@solana/kit";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import type { Ledger } from "../../../src/application/ports/ledger.ts";
import type { ConfirmationPolicy } from "../../../src/application/settlement/confirm-transaction.ts";
import type { SettlementStore } from "../../../src/application/ports/settlement-store.ts";
import { type FeeBudgetLimits, createFeeBudget } from "../../../src/application/settlement/fee-budget.ts";
import { type ReconcileReport, reconcileSettlements } from "../../../src/application/settlement/reconcile-settlements.ts";
import { type SettlementService, createSettlementService } from "../../../src/application/settlement/settle-payment.ts";
import type { PaymentDeps } from "../../../src/application/payment/payment-deps.ts";
import { settlementVerifier, verifyPayment } from "../../../src/application/payment/verify.ts";
import { systemClock } from "../../../src/application/ports/clock.ts";
import { USDC_DECIMALS } from "../../../src/domain/networks.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../../src/domain/registry/pdas.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../../src/domain/networks.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../../../src/domain/verification/verification-policy.ts";
import { createFacilitatorApp } from "../../../src/http/facilitator-app.ts";
import { createLocalLedger, type LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { createRpcSignatureWatch } from "../../../src/infrastructure/ledger/rpc-signature-watch.ts";
import { createRpcLedger } from "../../../src/infrastructure/ledger/rpc-ledger.ts";
import { createLocalSigner } from "../../../src/infrastructure/signers/index.ts";
import { type OpenedStore, openStore } from "../../../src/infrastructure/store/index.ts";
import { createSqlWindowCounters } from "../../../src/infrastructure/store/sql-window-counters.ts";
import { type LedgerProxy, startLedgerProxy } from "../../../fixtures/ledger-proxy.ts";
import { createVerificationCaches } from "../../../src/application/payment/verification-caches.ts";

export type ManualClock = Readonly<{ now(): number; advance(ms: number): void }>;

export function manualClock(start = Date.now()): ManualClock {
  let offset = 0;
  return Object.freeze({ now: () => start + offset, advance: (ms: number) => void (offset += ms) });
}

export type FaultRig = Readonly<{
  clock: ManualClock;
  /** The ledger itself, for funding and balances. */
  ledger: LocalLedger;
  proxy: LedgerProxy;
  /** The service's view of the ledger: the real JSON-RPC adapter through the proxy. */
  rpcLedger: Ledger;
  store: OpenedStore;
  feePayer: Address;
  settlement: SettlementService;
  app: ReturnType<typeof createFacilitatorApp>;
  /** Fee-payer signatures made so far (each one would be a KMS/HSM call in production). */
  signatures(): number;
  reconcile(): Promise<ReconcileReport>;
  close(): Promise<void>;
}>;

/** Short enough that the timeout test is quick, long enough that a loaded machine does not trip it. */
export const RIG_RPC_TIMEOUT_MS = 1_000;
export const RIG_CONFIRMATION: ConfirmationPolicy = Object.freeze({ pollIntervalMs: 20, maxWaitMs: 1_500 });

export type FaultRigOptions = Readonly<{
  /** A shared store (PGlite boots in about a second); the rig then leaves it open. */
  store?: OpenedStore;
  rpcTimeoutMs?: number;
  /** What the settlement service sees of the store (a wrapper that fails on demand, say). */
  wrapStore?: (store: SettlementStore) => SettlementStore;
  /** Fee budget limits, charged to counters in the same store; none by default. */
  feeBudget?: FeeBudgetLimits;
  /**
   * Pushed confirmations: the service watches signatures over the proxy's WebSocket, which serves
   * the ledger's pubsub ("pubsub") or, like a node without one, refuses the upgrade ("no-pubsub").
   * Absent: no watch, polling only.
   */
  signatureWatch?: "pubsub" | "no-pubsub";
}>;

export async function startFaultRig(options: FaultRigOptions = {}): Promise<FaultRig> {
  const clock = manualClock();
  const ledger = createLocalLedger({ clock });
  const proxy = startLedgerProxy(ledger, { pubsub: options.signatureWatch === "pubsub" });
  const signatureWatch = options.signatureWatch ? createRpcSignatureWatch({ url: proxy.url.replace(/^http/, "ws"), logger: silentLogger }) : undefined;
  const rpcLedger = createRpcLedger({ url: proxy.url, timeoutMs: options.rpcTimeoutMs ?? RIG_RPC_TIMEOUT_MS });
  const store = options.store ?? (await openStore({ inMemory: true }));
  const signer = await createLocalSigner(crypto.getRandomValues(new Uint8Array(32)), "test key");
  const feePayer = signer.address;
  await ledger.airdrop(feePayer, 10_000_000_000n);
  let signed = 0;
  const feeBudget = options.feeBudget ? createFeeBudget(createSqlWindowCounters(store.executor), options.feeBudget, clock) : undefined;

  const verifyDeps: PaymentDeps = {
    ledger: rpcLedger,
    feePayers: () => [feePayer],
    policy: DEFAULT_VERIFICATION_POLICY,
    network: SOLANA_DEVNET,
    assets: [DEVNET_USDC_MINT as Address],
    assetDecimals: USDC_DECIMALS,
    protocolFee: null,
    clock: systemClock,
    programId: DEFAULT_REGISTRY_PROGRAM_ID as Address,
    simulate: true,
    ...createVerificationCaches(rpcLedger),
    settledLookup: async (key) => (await store.settlements.get(key))?.state === "settled",
  };
  const settlement = createSettlementService({
    ledger: rpcLedger,
    store: options.wrapStore ? options.wrapStore(store.settlements) : store.settlements,
    ...(feeBudget ? { feeBudget } : {}),
    ...(signatureWatch ? { signatureWatch } : {}),
    logger: silentLogger,
    network: SOLANA_DEVNET,
    confirmation: RIG_CONFIRMATION,
    duplicateWaitMs: 1_000,
    verify: settlementVerifier(verifyDeps),
    sign: async (_address, message) => {
      signed += 1;
      const [signature] = await signer.signMessages([message]);
      if (!signature) throw new Error("no signature");
      return signature;
    },
  });
  const ok = async () => ({ status: "ok" as const });
  const app = createFacilitatorApp({ ...verifyDeps, verify: (request) => verifyPayment(request, verifyDeps), settlement, logger: silentLogger, health: { ledger: ok, store: ok, signer: ok }, version: "test" });

  return Object.freeze({
    clock,
    ledger,
    proxy,
    rpcLedger,
    store,
    feePayer,
    settlement,
    app,
    signatures: () => signed,
    reconcile: () => reconcileSettlements({ ledger: rpcLedger, store: store.settlements, logger: silentLogger, network: SOLANA_DEVNET, ...(feeBudget ? { feeBudget } : {}) }),
    async close() {
      await settlement.drain();
      signatureWatch?.close();
      if (!options.store) await store.close();
      await proxy.stop();
    },
  });
}
