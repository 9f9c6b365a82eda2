import type { PaymentPayload, PaymentRequirements } from "../payment/payment-request.ts";
import { type MinimumAmounts, checkMinimumAmount } from "./minimum-amount.ts";
import { reject, type Rejection } from "./rejection.ts";

/** What this facilitator serves: one scheme, one network, the accepted assets (USDC_MINT) and their minimums. */
export type SupportedKind = Readonly<{ network: string; assets: readonly string[]; minimumAmounts?: MinimumAmounts }>;

export function checkScheme(requirements: PaymentRequirements): Rejection | null {
  return requirements.scheme === "exact"
    ? null
    : reject("UNSUPPORTED_SCHEME", `scheme "${requirements.scheme}" is not supported (only "exact")`);
}

export function checkNetwork(requirements: PaymentRequirements, supported: SupportedKind): Rejection | null {
  return requirements.network === supported.network
    ? null
    : reject("UNSUPPORTED_NETWORK", `network "${requirements.network}" is not supported (only "${supported.network}")`);
}

export function checkAsset(requirements: PaymentRequirements, supported: SupportedKind): Rejection | null {
  return supported.assets.includes(requirements.asset)
    ? null
    : reject("UNSUPPORTED_ASSET", `asset ${requirements.asset} is not supported (only ${supported.assets.join(", ")})`);
}

/**
 * SECURITY: a zero-amount payment pays nobody, but its fee is ours to pay: it could only ever be
 * a way to make the fee payer spend.
 */
export function checkNonZeroAmount(requirements: PaymentRequirements): Rejection | null {
  return requirements.amount > 0n ? null : reject("ZERO_AMOUNT", "the required amount is 0; a payment must move at least one base unit");
}

/**
 * SECURITY: the client must have accepted exactly what the server asked for; otherwise a
 * payment built for a cheaper or different offer could be presented against this one.
 */
export function checkAcceptedMatches(payload: PaymentPayload, requirements: PaymentRequirements): Rejection | null {
  const accepted = payload.accepted;
  const differences: string[] = [];
  if (accepted.scheme !== requirements.scheme) differences.push("scheme");
  if (accepted.network !== requirements.network) differences.push("network");
  if (accepted.asset !== requirements.asset) differences.push("asset");
  if (accepted.amount !== requirements.amount) differences.push("amount");
  if (accepted.payTo !== requirements.payTo) differences.push("payTo");
  return differences.length === 0
    ? null
    : reject("ACCEPTED_REQUIREMENTS_MISMATCH", `accepted differs from paymentRequirements in ${differences.join(", ")}`);
}

/** The requirement checks in order; the first rejection wins. */
export function checkRequirements(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  supported: SupportedKind,
): Rejection | null {
  return (
    checkScheme(requirements) ??
    checkNetwork(requirements, supported) ??
    checkAsset(requirements, supported) ??
    checkNonZeroAmount(requirements) ??
    checkMinimumAmount(requirements, supported.minimumAmounts) ??
    checkAcceptedMatches(payload, requirements)
  );
}
