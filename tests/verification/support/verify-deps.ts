import type { Address } from "@solana/kit";
import type { VerifyPaymentDeps } from "../../../src/application/verify-payment.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../../src/domain/networks.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../../../src/domain/verification/verification-policy.ts";
import type { Actors } from "./payment-builder.ts";
import { createFakeLedger, type FakeLedger } from "./fake-ledger.ts";
import { createAtaDeriver } from "../../../src/domain/payment/associated-token-account.ts";
import { createVerificationKeyCache } from "../../../src/domain/verification/signature-checks.ts";

export function verifyDeps(
  actors: Actors,
  overrides: Partial<VerifyPaymentDeps> = {},
): VerifyPaymentDeps & Readonly<{ ledger: FakeLedger }> {
  const ledger = createFakeLedger(actors.payer.address);
  return {
    ledger,
    feePayers: [actors.feePayer.address] as readonly Address[],
    policy: DEFAULT_VERIFICATION_POLICY,
    network: SOLANA_DEVNET,
    asset: DEVNET_USDC_MINT as Address,
    simulate: true,
    atas: createAtaDeriver(),
    verificationKeys: createVerificationKeyCache(),
    ...overrides,
  } as VerifyPaymentDeps & Readonly<{ ledger: FakeLedger }>;
}
