/**
 * Composition of the fee payer's protections from configuration: the payTo policy, the fee
 * budget and its shared counters, the API keys (read once by service.ts), and the balance watch. Reads files the settings
 * name; like service.ts it never reads the environment itself.
 */
import type { Address } from "@solana/kit";
import type { HealthCheck } from "../application/health.ts";
import type { AgentIndex } from "../application/ports/agent-index.ts";
import type { Clock } from "../application/ports/clock.ts";
import type { Ledger } from "../application/ports/ledger.ts";
import type { Metrics } from "../application/ports/metrics.ts";
import type { PayToPolicy } from "../application/ports/pay-to-policy.ts";
import { allowlistPolicy, registeredAgentsPolicy } from "../application/pay-to-policies.ts";
import { type FeeBudget, createFeeBudget } from "../application/settlement/fee-budget.ts";
import type { AppConfig } from "../infrastructure/config/app-config.ts";
import { loadPayToAllowlist } from "../infrastructure/config/policy-files.ts";
import type { WindowCounterFactory } from "./window-counters-composition.ts";
import type { ApiKeyHashes } from "../http/facilitator/api-key-guard.ts";

export type FeePayerProtection = Readonly<{
  payToPolicy: PayToPolicy | undefined;
  feeBudget: FeeBudget;
  apiKeys: ApiKeyHashes | null;
}>;

export async function createFeePayerProtection(
  config: AppConfig,
  deps: Readonly<{ index: AgentIndex; counters: WindowCounterFactory; clock: Clock; apiKeys: ApiKeyHashes | null }>,
): Promise<FeePayerProtection> {
  const payToPolicy = await payToPolicyOf(config, deps.index);
  const feeBudget = createFeeBudget(
    deps.counters.counters("fee-budget", config.FEE_BUDGET_WINDOW_SECONDS),
    {
      perPayerLamports: BigInt(config.FEE_BUDGET_PER_PAYER_LAMPORTS),
      perFeePayerLamports: BigInt(config.FEE_BUDGET_PER_FEE_PAYER_LAMPORTS),
      windowSeconds: config.FEE_BUDGET_WINDOW_SECONDS,
      reservedForApiKeysPercent: config.FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT,
    },
    deps.clock,
  );
  return Object.freeze({ payToPolicy, feeBudget, apiKeys: deps.apiKeys });
}

async function payToPolicyOf(config: AppConfig, index: AgentIndex): Promise<PayToPolicy | undefined> {
  switch (config.PAYTO_POLICY) {
    case "any":
      return undefined;
    case "allowlist":
      if (!config.PAYTO_ALLOWLIST_FILE) throw new Error("PAYTO_POLICY=allowlist needs PAYTO_ALLOWLIST_FILE");
      return allowlistPolicy(await loadPayToAllowlist(config.PAYTO_ALLOWLIST_FILE));
    case "registered-agents":
      return registeredAgentsPolicy(index);
  }
}

/**
 * Reads every fee payer's SOL balance, publishes it as a gauge, and reports `degraded` when one is
 * under FEE_PAYER_MIN_BALANCE_LAMPORTS: an operator tops it up before settlements start failing.
 */
export function feePayerBalanceCheck(
  ledger: Ledger,
  feePayers: () => readonly Address[],
  floorLamports: bigint,
  metrics: Metrics,
): () => Promise<HealthCheck> {
  return async () => {
    const addresses = feePayers();
    const accounts = await ledger.getMultipleAccounts(addresses);
    const low: string[] = [];
    addresses.forEach((address, i) => {
      const lamports = accounts[i]?.lamports ?? 0n;
      metrics.set("x402_fee_payer_balance_lamports", "SOL balance of each fee payer, in lamports", { fee_payer: address }, Number(lamports));
      if (lamports < floorLamports) low.push(`${address} holds ${lamports} lamports`);
    });
    return low.length === 0 ? { status: "ok" } : { status: "degraded", detail: `fee payer balance under ${floorLamports} lamports: ${low.join(", ")}` };
  };
}
