import { isAddress, type Address } from "@solana/kit";
import { parseModeExtensions } from "../../domain/modes/mode-extensions.ts";
import { expectedResourceOf } from "../../domain/modes/receipt-resource.ts";
import { createAtaDeriver, type AtaDeriver } from "../../domain/payment/associated-token-account.ts";
import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { reject } from "../../domain/verification/rejection.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";
import { isRejection, modeRejected, type ModeVerificationResult } from "./mode-result.ts";
import { verifyDelegatedMode } from "./verify-delegated-mode.ts";
import { verifyReceiptMode } from "./verify-receipt-mode.ts";

export type { DelegatedSettlement, ModeRejected, ModeVerificationResult, ModeVerified } from "./mode-result.ts";

export type VerifyModeDeps = Readonly<{
  ledger: Ledger;
  clock: Clock;
  /** The registry program (REGISTRY_PROGRAM_ID; default X84XXX...). */
  programId: Address;
  /** The facilitator's fee payers, read per request so a signer pool can change. */
  feePayers: readonly Address[] | (() => readonly Address[]);
  /** Shared ATA cache; a private one is created per call otherwise. */
  atas?: AtaDeriver;
}>;

/**
 * The settlement-mode checks for a request whose `extensions.mode` is set (see
 * docs/settlement-modes.md). Run the requirement checks (scheme, network, asset, `accepted`)
 * before this; paymentId reuse is the settlement store's to refuse. Payment problems come back
 * as `{ ok: false }`; only an unreachable ledger throws.
 */
export async function verifyModePayment(request: PaymentRequest, deps: VerifyModeDeps): Promise<ModeVerificationResult> {
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

  if (extensions.mode !== "delegated") {
    const txSignature = extensions.txSignature;
    if (txSignature === undefined) return modeRejected(reject("MODE_INVALID", "extensions.txSignature is required"));
    return verifyReceiptMode(
      { ...extensions, mode: extensions.mode, txSignature },
      { requirements, resource: expectedResourceOf(request) },
      { ledger: deps.ledger, programId: deps.programId, clock: deps.clock },
    );
  }
  const feePayers = typeof deps.feePayers === "function" ? deps.feePayers() : deps.feePayers;
  return verifyDelegatedMode(extensions, { payTo, asset, amount: requirements.amount }, {
    ledger: deps.ledger,
    clock: deps.clock,
    programId: deps.programId,
    feePayers,
    atas: deps.atas ?? createAtaDeriver({ capacity: 16 }),
  });
}
