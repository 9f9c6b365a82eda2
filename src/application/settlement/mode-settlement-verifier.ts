import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { type PaymentCheckDeps, checkModeRequirements } from "../modes/check-payment.ts";
import { modeDepsOf, readModeRequest } from "../modes/check-mode-payment.ts";
import { modeRejected } from "../modes/mode-result.ts";
import type { VerifyForSettlement } from "./settle-payment.ts";

/**
 * /settle for `extensions.mode` requests: the requirement checks, the mode's checks, then its
 * policy's settlement candidate (a record only, or a transaction the facilitator built, which goes
 * through the same co-sign, claim, submit and confirm steps as a standard payment).
 */
export function modeSettlementVerifier(deps: PaymentCheckDeps): VerifyForSettlement {
  const modeDeps = modeDepsOf(deps);
  return async (request: PaymentRequest) => {
    const problem = await checkModeRequirements(request, deps);
    if (problem) return modeRejected(problem);
    const read = readModeRequest(request);
    if ("ok" in read) return read;
    const verified = await read.policy.check(read.extensions, read.terms, modeDeps);
    if (!verified.ok) return verified;
    return read.policy.settlementCandidate(verified, read.terms, modeDeps);
  };
}
