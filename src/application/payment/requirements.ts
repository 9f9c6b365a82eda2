import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { reject, type Rejection } from "../../domain/rejection.ts";
import { type SupportedKind, checkRequirements } from "../../domain/verification/requirement-checks.ts";
import type { PayToPolicy } from "../ports/pay-to-policy.ts";
import type { PaymentDeps } from "./payment-deps.ts";

/**
 * What every kind of payment is checked against first: the scheme, network, asset, amount
 * (non-zero, over MIN_PAYMENT_AMOUNT), `accepted`, then the payTo policy.
 */
export async function checkPaymentRequirements(request: PaymentRequest, deps: PaymentDeps): Promise<Rejection | null> {
  return checkRequirements(request.paymentPayload, request.paymentRequirements, supportedKindOf(deps)) ?? (await checkPayTo(request.paymentRequirements.payTo, deps.payToPolicy));
}

/** What the requirement checks accept, from the pipeline's settings. */
export function supportedKindOf(deps: Pick<PaymentDeps, "network" | "assets" | "minimumAmounts">): SupportedKind {
  return { network: deps.network, assets: deps.assets, ...(deps.minimumAmounts ? { minimumAmounts: deps.minimumAmounts } : {}) };
}

/** SECURITY: PAYTO_POLICY. An index that cannot answer refuses: the policy fails closed. */
export async function checkPayTo(payTo: string, policy: PayToPolicy | undefined): Promise<Rejection | null> {
  if (!policy) return null;
  let allowed: boolean;
  try {
    allowed = await policy.allows(payTo);
  } catch {
    return reject("PAYTO_NOT_ALLOWED", `payTo ${payTo} cannot be checked against the ${policy.name} policy right now; retry later`);
  }
  return allowed ? null : reject("PAYTO_NOT_ALLOWED", `payTo ${payTo} is not allowed by this facilitator's ${policy.name} policy`);
}
