/**
 * The facilitator's wiring: the payment pipeline's deps from the settings, the settlement service
 * over the store, the signer pool and the fee budget, and what the facilitator app is given.
 */
import type { Address } from "@solana/kit";
import type { HealthProbes } from "../application/health.ts";
import { FACILITATOR_READINESS } from "../application/health.ts";
import type { PaymentDeps } from "../application/payment/payment-deps.ts";
import { createVerificationCaches } from "../application/payment/verification-caches.ts";
import { replayAuthorized, replayKeyOf, settlementVerifier, verifyPayment } from "../application/payment/verify.ts";
import { systemClock, systemRepeater } from "../application/ports/clock.ts";
import type { Ledger } from "../application/ports/ledger.ts";
import type { Logger } from "../application/ports/logger.ts";
import { type SettlementService, createSettlementService } from "../application/settlement/settle-payment.ts";
import { createSettlementLookup } from "../application/settlement/settlement-lookup.ts";
import { type SignerPool, summarizeSignerHealth } from "../application/signer-pool.ts";
import { USDC_DECIMALS } from "../domain/networks.ts";
import { parseAllowedDelegateMints } from "../domain/token/mint-policy.ts";
import { parseMinimumAmounts } from "../domain/verification/minimum-amount.ts";
import type { ProtocolFeeSplit } from "../domain/verification/protocol-fee.ts";
import { createVerificationPolicy } from "../domain/verification/verification-policy.ts";
import type { FacilitatorAppDeps } from "../http/facilitator-app.ts";
import type { AppConfig } from "../infrastructure/config/app-config.ts";
import type { LedgerNetworkCheck } from "../application/ledger-network.ts";
import { createNetworkGuard } from "../application/ledger-network.ts";
import { startReconcilerLoop } from "../application/settlement/reconciler-loop.ts";
import type { SettlementStore } from "../application/ports/settlement-store.ts";
import { reconcilerMetrics } from "../infrastructure/metrics/settlement-record-metrics.ts";
import { configurationError } from "./shared-composition.ts";
import type { EnterLogContext } from "../application/ports/log-context.ts";
import { instrumentSettlement } from "../infrastructure/metrics/instrumented-settlement.ts";
import type { PrometheusMetrics } from "../infrastructure/metrics/prometheus-metrics.ts";
import type { OpenedStore } from "../infrastructure/store/index.ts";
import { type FeePayerProtection, feePayerBalanceCheck } from "./fee-payer-protection.ts";
import { ping, toOperators } from "./health-probes.ts";
import type { WindowCounterFactory } from "./window-counters-composition.ts";
import type { Discovery } from "./discovery-composition.ts";
import { createRpcSignatureWatch } from "../infrastructure/ledger/rpc-signature-watch.ts";
import { pubsubUrlOf } from "./registry-composition.ts";

export type FacilitatorWiring = Readonly<{
  config: AppConfig;
  acceptedAssets: readonly Address[];
  protocolFee: ProtocolFeeSplit | null;
  ledger: Ledger;
  store: OpenedStore;
  feePayers: SignerPool;
  protection: FeePayerProtection;
  counters: WindowCounterFactory;
  metrics: PrometheusMetrics;
  enterLogContext: EnterLogContext;
  logger: Logger;
  version: string;
  /** The Bazaar catalogue; null when DISCOVERY_ENABLED=false. */
  discovery?: Discovery | null;
}>;

export type Facilitator = Readonly<{
  paymentDeps: PaymentDeps;
  /** Null when no fee-payer key is configured: /settle then answers the specified 500. */
  settlement: SettlementService | null;
  facilitatorDeps: FacilitatorAppDeps;
}>;

export function composeFacilitator(wiring: FacilitatorWiring): Facilitator {
  const { config, acceptedAssets, protocolFee, ledger, store, feePayers, protection, counters, metrics, enterLogContext, logger, version, discovery } = wiring;
  const paymentDeps: PaymentDeps = {
    ledger,
    feePayers: () => feePayers.addresses,
    policy: createVerificationPolicy({
      maxComputeUnitLimit: config.VERIFY_MAX_COMPUTE_UNIT_LIMIT,
      maxComputeUnitPriceMicroLamports: BigInt(config.VERIFY_MAX_COMPUTE_UNIT_PRICE),
      maxInstructions: config.VERIFY_MAX_INSTRUCTIONS,
      maxPriorityFeeLamports: BigInt(config.PRIORITY_FEE_MAX_LAMPORTS),
    }),
    network: config.NETWORK,
    assets: acceptedAssets,
    assetDecimals: USDC_DECIMALS,
    protocolFee,
    minimumAmounts: parseMinimumAmounts(config.MIN_PAYMENT_AMOUNT, acceptedAssets),
    token2022: { transferFee: config.TOKEN_2022_TRANSFER_FEE, allowPermanentDelegate: parseAllowedDelegateMints(config.TOKEN_2022_ALLOW_PERMANENT_DELEGATE) },
    simulate: config.VERIFY_SIMULATE,
    ...createVerificationCaches(ledger),
    ...(protection.payToPolicy ? { payToPolicy: protection.payToPolicy } : {}),
    settledLookup: async (key, paymentId) => {
      const record = (await store.settlements.get(key)) ?? (paymentId ? await store.settlements.findByPaymentId(paymentId.payer, paymentId.paymentId) : null);
      return record?.state === "settled";
    },
    clock: systemClock,
    programId: config.REGISTRY_PROGRAM_ID as Address,
  };

  const settlement =
    feePayers.addresses.length === 0
      ? null
      : createSettlementService({
          ledger,
          store: store.settlements,
          logger: logger.child({ component: "settlement" }),
          network: config.NETWORK,
          duplicates: config.SETTLE_DUPLICATES,
          confirmDeadlineMs: config.SETTLE_CONFIRM_DEADLINE_MS,
          // SETTLE_CONFIRM_PUSH, over JSON-RPC only: the embedded ledger in this process answers a status read without a hop.
          ...(config.SOLANA_RPC_URL && config.SETTLE_CONFIRM_PUSH ? { signatureWatch: createRpcSignatureWatch({ url: pubsubUrlOf(config), logger }) } : {}),
          duplicateWaitMs: config.SETTLE_CONFIRM_DEADLINE_MS,
          feeBudget: protection.feeBudget,
          clock: systemClock,
          onFeeSpent: (outcome, feePayer, lamports) =>
            metrics.increment("x402_fee_payer_lamports_spent_total", "Lamports our fee payers paid in fees, by outcome", { outcome, fee_payer: feePayer }, Number(lamports)),
          verify: settlementVerifier(paymentDeps),
          replayKeyOf: replayKeyOf(paymentDeps),
          replayAuthorized: replayAuthorized(paymentDeps),
          sign: async (address, message) => {
            const [signature] = await feePayers.sign(address, [message]);
            if (!signature) throw new Error("signer returned no signature");
            return signature;
          },
        });

  const balances = feePayerBalanceCheck(ledger, () => feePayers.addresses, BigInt(config.FEE_PAYER_MIN_BALANCE_LAMPORTS), metrics);
  const health: HealthProbes = {
    readiness: FACILITATOR_READINESS,
    failuresBeforeDown: config.READINESS_FAILURE_THRESHOLD,
    // Without the fee budget's counters nothing can be settled (the budget fails closed).
    ...(counters.ping ? { counters: toOperators(logger, "counters", ping(counters.ping)) } : {}),
    ledger: toOperators(logger, "ledger", ping(() => ledger.ping())),
    store: toOperators(logger, "store", ping(() => store.ping())),
    signer: async () => {
      if (feePayers.addresses.length === 0) return { status: "degraded", detail: "no fee-payer key configured: /settle is disabled" };
      const status = summarizeSignerHealth(feePayers.health());
      return status === "ok" ? toOperators(logger, "ledger", balances)() : { status };
    },
  };
  // The app gets what /supported declares and the pipeline's entry points, not the pipeline's deps.
  const { network, feePayers: feePayerAddresses, assets, policy, minimumAmounts, protocolFee: split, payToPolicy, mints, token2022 } = paymentDeps;
  const facilitatorDeps: FacilitatorAppDeps = {
    network,
    feePayers: feePayerAddresses,
    assets,
    policy,
    protocolFee: split,
    mints,
    token2022,
    ...(minimumAmounts ? { minimumAmounts } : {}),
    ...(payToPolicy ? { payToPolicy } : {}),
    verify: async (request) => {
      const result = await verifyPayment(request, paymentDeps);
      metrics.increment("x402_verifications_total", "Payments verified, by outcome", { outcome: result.ok ? "valid" : result.reason });
      return result;
    },
    settlement: settlement && instrumentSettlement(settlement, metrics),
    settlementLookup: createSettlementLookup({ store: store.settlements, network: config.NETWORK }),
    metrics,
    enterLogContext,
    apiKeys: protection.apiKeys,
    apiKeysRequired: config.FACILITATOR_API_KEYS_REQUIRED,
    logger,
    health,
    version,
    ...(discovery ? { discovery: { catalogue: discovery.catalogue }, observePayment: discovery.recorder.observe } : {}),
  };
  return Object.freeze({ paymentDeps, settlement, facilitatorDeps });
}

/** Both settings or neither: a treasury without bps (or the reverse) is a configuration mistake. */
export function protocolFeeOf(config: Pick<AppConfig, "PROTOCOL_FEE_TREASURY" | "PROTOCOL_FEE_BPS">): ProtocolFeeSplit | null {
  const { PROTOCOL_FEE_TREASURY: treasury, PROTOCOL_FEE_BPS: bps } = config;
  if (treasury === undefined && bps === undefined) return null;
  if (treasury === undefined || bps === undefined) throw configurationError(["PROTOCOL_FEE_TREASURY and PROTOCOL_FEE_BPS go together"]);
  return Object.freeze({ treasury: treasury as Address, bps });
}

export type ReconcilerWiring = Readonly<{
  config: AppConfig;
  ledger: Ledger;
  settlements: SettlementStore;
  ledgerNetwork: LedgerNetworkCheck;
  protection: FeePayerProtection;
  metrics: PrometheusMetrics;
  logger: Logger;
}>;

/** Recovery of interrupted settlements. Registry-only pods never settle, so it is left to the facilitator pods. */
export function startReconciler(wiring: ReconcilerWiring): Readonly<{ stop(): void }> {
  const { config, ledger, metrics } = wiring;
  if (config.ROLE === "registry") return { stop() {} };
  return startReconcilerLoop({
    ledger,
    store: wiring.settlements,
    logger: wiring.logger,
    feeBudget: wiring.protection.feeBudget,
    network: config.NETWORK,
    networkGuard: createNetworkGuard(ledger, config.NETWORK, wiring.ledgerNetwork),
    recheckFailedSeconds: config.RECONCILE_RECHECK_FAILED_MINUTES * 60,
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    repeat: systemRepeater,
    onPass: reconcilerMetrics(metrics, systemClock.now),
  });
}
