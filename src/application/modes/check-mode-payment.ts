import { isAddress, type Address } from "@solana/kit";
import { type ModeExtensions, parseModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { USDC_DECIMALS } from "../../domain/networks.ts";
import { createAtaDeriver, type AtaDeriver } from "../../domain/payment/associated-token-account.ts";
import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { reject } from "../../domain/verification/rejection.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";
import { isRejection, modeRejected, type ModeRejected, type ModeVerificationResult } from "./mode-result.ts";
import type { ModeDeps, ModePolicy, ModeTerms } from "./mode-policy.ts";
import { MODE_POLICIES } from "./mode-table.ts";

export type { DelegatedSettlement, ModeRejected, ModeVerificationResult, ModeVerified } from "./mode-result.ts";

export type ModeCheckDeps = Readonly<{
  ledger: Ledger;
  clock: Clock;
  /** The registry program (REGISTRY_PROGRAM_ID; default X84XXX...). */
  programId: Address;
  /** The facilitator's fee payers, read per request so a signer pool can change. */
  feePayers: readonly Address[] | (() => readonly Address[]);
  /** Shared ATA cache; a private one is created per call otherwise. */
  atas?: AtaDeriver;
  /** Decimals of the accepted asset (default 6, USDC). */
  assetDecimals?: number;
}>;

/** A mode request once parsed, with the policy that judges it. */
export type ModeRequest = Readonly<{ policy: ModePolicy; extensions: ModeExtensions; terms: ModeTerms }>;

export function modeDepsOf(deps: ModeCheckDeps): ModeDeps {
  const { feePayers } = deps;
  return {
    ledger: deps.ledger,
    clock: deps.clock,
    programId: deps.programId,
    feePayers: typeof feePayers === "function" ? feePayers : () => feePayers,
    atas: deps.atas ?? createAtaDeriver({ capacity: 16 }),
    assetDecimals: deps.assetDecimals ?? USDC_DECIMALS,
  };
}

/**
 * Parses `extensions` and runs the checks every mode shares (the client's amount claim, payTo and
 * asset as addresses); the policy for `extensions.mode` comes with the result.
 */
export function readModeRequest(request: PaymentRequest): ModeRequest | ModeRejected {
  const requirements = request.paymentRequirements;
  const extensions = parseModeExtensions(request.paymentPayload.extensions);
  if (isRejection(extensions)) return modeRejected(extensions);
  // SECURITY: a client-stated amount is only a claim; the requirement's amount is what is checked.
  if (extensions.amount !== undefined && extensions.amount !== requirements.amount) {
    return modeRejected(reject("AMOUNT_MISMATCH", `extensions.amount is ${extensions.amount}, expected ${requirements.amount}`), extensions.payer);
  }
  const { payTo, asset } = requirements;
  if (!isAddress(payTo)) return modeRejected(reject("RECIPIENT_MISMATCH", `payTo ${payTo} is not a base58 address`), extensions.payer);
  if (!isAddress(asset)) return modeRejected(reject("UNSUPPORTED_ASSET", `asset ${asset} is not a base58 address`), extensions.payer);
  return { policy: MODE_POLICIES[extensions.mode], extensions, terms: { request, payTo, asset, amount: requirements.amount } };
}

/**
 * The settlement-mode checks for a request whose `extensions.mode` is set (see
 * docs/settlement-modes.md). Run the requirement checks (scheme, network, asset, `accepted`)
 * before this; paymentId reuse is the settlement store's to refuse. Payment problems come back
 * as `{ ok: false }`; only an unreachable ledger throws.
 */
export async function checkModePayment(request: PaymentRequest, deps: ModeCheckDeps): Promise<ModeVerificationResult> {
  const read = readModeRequest(request);
  if ("ok" in read) return read;
  return read.policy.check(read.extensions, read.terms, modeDepsOf(deps));
}
