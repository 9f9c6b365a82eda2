import type { Address } from "@solana/kit";
import type { PaymentVerdict } from "../../../src/application/payment/mode-policy.ts";
import type { PaymentDeps } from "../../../src/application/payment/payment-deps.ts";
import { verifyPayment } from "../../../src/application/payment/verify.ts";
import type { PaymentRequest } from "../../../src/domain/payment/payment-request.ts";
import { createVerificationCaches } from "../../../src/application/payment/verification-caches.ts";
import { fixedMintReader } from "../../../src/application/payment/mint-reader.ts";
import { TOKEN_PROGRAM_ADDRESS } from "../../../src/domain/token/mint-view.ts";
import { systemClock } from "../../../src/application/ports/clock.ts";
import type { Ledger } from "../../../src/application/ports/ledger.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET, USDC_DECIMALS } from "../../../src/domain/networks.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../../src/domain/registry/pdas.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../../../src/domain/verification/verification-policy.ts";
import type { Actors } from "./payment-builder.ts";
import { createFakeLedger, type FakeLedger } from "./fake-ledger.ts";

/** The payment pipeline's deps over a fake ledger (or `overrides.ledger`), with the actors' fee payer as ours. */
export function verifyDeps(actors: Actors, overrides: Partial<PaymentDeps> = {}): PaymentDeps & Readonly<{ ledger: FakeLedger }> {
  const ledger = overrides.ledger ?? createFakeLedger(actors.payer.address);
  return pipelineDeps(ledger, [actors.feePayer.address], overrides) as PaymentDeps & Readonly<{ ledger: FakeLedger }>;
}

/** Devnet USDC as an SPL Token mint, known without a ledger read (a fake ledger answers every address with a token account). */
export const USDC_MINT_VIEW = Object.freeze({ address: DEVNET_USDC_MINT as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS, decimals: USDC_DECIMALS, extensions: [] });

/**
 * The payment pipeline's deps as the service composes them, on `ledger`, with `feePayers` as ours
 * (tests and benches). The asset is devnet USDC, an SPL Token mint, known without reading it; pass
 * `mints` to read mints from the ledger instead.
 */
export function pipelineDeps(ledger: Ledger, feePayers: readonly Address[], overrides: Partial<PaymentDeps> = {}): PaymentDeps {
  return {
    ledger,
    feePayers: () => feePayers,
    policy: DEFAULT_VERIFICATION_POLICY,
    network: SOLANA_DEVNET,
    assets: [DEVNET_USDC_MINT as Address],
    assetDecimals: USDC_DECIMALS,
    simulate: true,
    protocolFee: null,
    clock: systemClock,
    programId: DEFAULT_REGISTRY_PROGRAM_ID as Address,
    ...createVerificationCaches(ledger),
    mints: fixedMintReader([USDC_MINT_VIEW]),
    ...overrides,
  };
}

/** What the facilitator's /verify route takes: the deps and the pipeline's entry point over them. */
export function withVerify<Deps extends PaymentDeps>(deps: Deps): Deps & Readonly<{ verify: (request: PaymentRequest) => Promise<PaymentVerdict> }> {
  return { ...deps, verify: (request: PaymentRequest) => verifyPayment(request, deps) };
}
