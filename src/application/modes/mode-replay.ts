import { parseModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { type PaymentRequest, settlementModeOf } from "../../domain/payment/payment-request.ts";
import { checkRequirements } from "../../domain/verification/requirement-checks.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import type { ModeDeps } from "./mode-policy.ts";
import { MODE_POLICIES } from "./mode-table.ts";

type RequirementDeps = Readonly<{ network: string; assets: readonly string[] }>;

/**
 * The settlement service's `replayKeyOf`: the key under which /settle may answer a mode request
 * from a settled record WITHOUT checking it again (each mode's policy decides); null when it must
 * be checked. A request that fails the requirement checks is never answered from a record.
 */
export function modeReplayKeyOf(deps: RequirementDeps): (request: PaymentRequest) => string | null {
  return (request) => {
    if (settlementModeOf(request.paymentPayload) === undefined) return null;
    if (checkRequirements(request.paymentPayload, request.paymentRequirements, deps)) return null;
    const parsed = parseModeExtensions(request.paymentPayload.extensions);
    return "reason" in parsed ? null : MODE_POLICIES[parsed.mode].replayKey(parsed);
  };
}

/** The settlement service's `replayAuthorized`: the policy of the request's mode decides. */
export function modeReplayAuthorized(deps: ModeDeps): (request: PaymentRequest, record: SettlementRecord) => Promise<boolean> {
  return async (request, record) => {
    const parsed = parseModeExtensions(request.paymentPayload.extensions);
    // Unreachable in practice: modeReplayKeyOf gave no key for such a request.
    if ("reason" in parsed) return false;
    return MODE_POLICIES[parsed.mode].replayAuthorized(parsed, record, deps);
  };
}
