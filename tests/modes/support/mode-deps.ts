import type { Address } from "@solana/kit";
import { EXTENSION_MODE_POLICIES } from "../../../src/application/payment/mode-table.ts";
import type { ModeVerificationResult } from "../../../src/application/payment/modes/mode-result.ts";
import type { PaymentDeps } from "../../../src/application/payment/payment-deps.ts";
import { createVerificationCaches } from "../../../src/application/payment/verification-caches.ts";
import type { Clock } from "../../../src/application/ports/clock.ts";
import type { Ledger } from "../../../src/application/ports/ledger.ts";
import { SOLANA_DEVNET, USDC_DECIMALS } from "../../../src/domain/networks.ts";
import type { PaymentRequest } from "../../../src/domain/payment/payment-request.ts";
import { MODE_NAMES, type ModeName } from "../../../src/domain/settlement/settlement-mode.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../../../src/domain/verification/verification-policy.ts";
import { PROGRAM_ID, USDC } from "./mode-fixtures.ts";

/** The payment pipeline's deps for the mode tests: the fixtures' program, asset and network. */
export function modeDeps(ledger: Ledger, clock: Clock, feePayers: readonly Address[], overrides: Partial<PaymentDeps> = {}): PaymentDeps {
  return {
    ledger,
    feePayers: () => feePayers,
    policy: DEFAULT_VERIFICATION_POLICY,
    network: SOLANA_DEVNET,
    assets: [USDC],
    assetDecimals: USDC_DECIMALS,
    simulate: true,
    protocolFee: null,
    clock,
    programId: PROGRAM_ID,
    ...createVerificationCaches(ledger),
    ...overrides,
  };
}

/**
 * A mode request's checks with their full result (the shared steps and the mode's own), as /settle
 * builds its candidate from them. A value that names no mode goes to a mode's parse, which refuses it.
 */
export function checkModePayment(request: PaymentRequest, deps: PaymentDeps): Promise<ModeVerificationResult> {
  const named = request.paymentPayload.extensions?.["mode"];
  const mode: ModeName = MODE_NAMES.find((name) => name === named) ?? "atomic";
  return EXTENSION_MODE_POLICIES[mode].check(request, deps);
}
