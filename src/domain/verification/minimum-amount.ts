import type { PaymentRequirements } from "../payment/payment-request.ts";
import { reject, type Rejection } from "./rejection.ts";

/** MIN_PAYMENT_AMOUNT: the smallest amount accepted per asset, in base units (absent: no minimum beyond 1). */
export type MinimumAmounts = ReadonlyMap<string, bigint>;

/**
 * Parses MIN_PAYMENT_AMOUNT: one number for every accepted asset, or `<mint>=<amount>` pairs.
 * Throws at boot for a mint that is not accepted (a typo would silently set no minimum).
 */
export function parseMinimumAmounts(text: string, assets: readonly string[]): MinimumAmounts {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return new Map(assets.map((asset) => [asset, BigInt(trimmed)] as const));
  const minimums = new Map<string, bigint>();
  for (const pair of trimmed.split(",")) {
    const [mint = "", amount = ""] = pair.trim().split("=");
    if (!assets.includes(mint)) throw new RangeError(`MIN_PAYMENT_AMOUNT names ${mint}, which is not an accepted asset (USDC_MINT)`);
    if (!/^\d+$/.test(amount)) throw new RangeError(`MIN_PAYMENT_AMOUNT for ${mint} is not an amount in base units`);
    minimums.set(mint, BigInt(amount));
  }
  return minimums;
}

/**
 * SECURITY: every accepted settlement costs the fee payer about the same lamports, whatever it
 * moves; a payment of one base unit to a wallet of one's own buys that spend for nothing. A
 * minimum makes each settlement worth its fee (docs/verification.md: choosing MIN_PAYMENT_AMOUNT).
 */
export function checkMinimumAmount(requirements: PaymentRequirements, minimums: MinimumAmounts | undefined): Rejection | null {
  const minimum = minimums?.get(requirements.asset) ?? 0n;
  return requirements.amount >= minimum
    ? null
    : reject("AMOUNT_TOO_SMALL", `the required amount ${requirements.amount} is under this facilitator's minimum of ${minimum} base units of ${requirements.asset}`);
}
