import { isAddress, type Address } from "@solana/kit";
import { type ModeExtensions, parseModeExtensions } from "../../../domain/modes/mode-extensions.ts";
import type { PaymentRequest } from "../../../domain/payment/payment-request.ts";
import type { ModeName } from "../../../domain/settlement/settlement-mode.ts";
import { modeSettlementKey } from "../../../domain/settlement/mode-settlement-key.ts";
import { reject, type Rejection } from "../../../domain/rejection.ts";
import { checkRequirements } from "../../../domain/verification/requirement-checks.ts";
import type { SettlementRecord } from "../../ports/settlement-store.ts";
import type { CandidateResult, ModePolicy, PaymentHandler } from "../mode-policy.ts";
import type { PaymentDeps } from "../payment-deps.ts";
import { type PaymentRefusal, isRejection, refused } from "../payment-refusal.ts";
import { checkPaymentRequirements, supportedKindOf } from "../requirements.ts";
import type { ModeVerificationResult, ModeVerified } from "./mode-result.ts";

/** The request with the requirements' payTo and asset already checked to be base58 addresses. */
export type ModeTerms = Readonly<{ request: PaymentRequest; payTo: Address; asset: Address; amount: bigint }>;

/**
 * A settlement mode named in `extensions.mode`, as written: `parse` narrows the extensions to
 * what the mode needs and `check` gets only that; the steps every such mode shares (the
 * requirement checks, the extensions' parse, the client's amount claim, the already-settled
 * lookup) are defineModePolicy's.
 */
export type ExtensionModeDefinition<Parsed> = Readonly<{
  id: ModeName;
  /** Other values of `extensions.mode` that mean this mode. The first is the extension id /supported advertises. */
  aliases: readonly [string, ...string[]];
  parse(extensions: ModeExtensions): Parsed | Rejection;
  /** This mode's own checks: a rejection, or what settlement needs. */
  check(parsed: Parsed, terms: ModeTerms, deps: PaymentDeps): Promise<ModeVerificationResult>;
  /** What /settle does with a checked payment: record it, or build a transaction to co-sign and submit. */
  settlementCandidate(verified: ModeVerified, terms: ModeTerms, deps: PaymentDeps): Promise<CandidateResult>;
  /** The record key /settle may answer from WITHOUT checking again; null: check again first. */
  replayKey(extensions: ModeExtensions): string | null;
  /** Whether a request found settled under `replayKey` may be answered from that record. */
  replayAuthorized(extensions: ModeExtensions, record: SettlementRecord, deps: PaymentDeps): Promise<boolean>;
}>;

type Checked = Readonly<{ verified: ModeVerified; terms: ModeTerms }>;

/** A mode named in `extensions.mode`: its policy, and its checks' full result (what /settle builds on). */
export type ExtensionModePolicy = ModePolicy &
  Readonly<{
    /** The shared steps and this mode's checks, without the already-settled lookup. */
    check(request: PaymentRequest, deps: PaymentDeps): Promise<ModeVerificationResult>;
  }>;

/** A mode's definition joined to the shared steps: one ModePolicy, whatever the mode parses to. */
export function defineModePolicy<Parsed extends object>(definition: ExtensionModeDefinition<Parsed>): ExtensionModePolicy {
  async function checked(request: PaymentRequest, deps: PaymentDeps): Promise<Checked | PaymentRefusal> {
    const read = await readModeRequest(request, deps);
    if ("ok" in read) return read;
    const parsed = definition.parse(read.extensions);
    if (isRejection(parsed)) return refused(parsed);
    const verified = await definition.check(parsed, read.terms, deps);
    return verified.ok ? { verified, terms: read.terms } : verified;
  }
  return Object.freeze({
    id: definition.id,
    aliases: definition.aliases,
    async check(request: PaymentRequest, deps: PaymentDeps): Promise<ModeVerificationResult> {
      const result = await checked(request, deps);
      return "verified" in result ? result.verified : result;
    },
    async verify(request: PaymentRequest, deps: PaymentDeps) {
      // Checked first: once paid, a delegated payment's allowance and proof window no longer hold,
      // and the truthful answer is that it was settled.
      const key = modeRecordKeyOf(request);
      if (key && deps.settledLookup && (await deps.settledLookup(key, null))) {
        return refused({ reason: "ALREADY_SETTLED", message: "this paymentId was already settled" });
      }
      const result = await checked(request, deps);
      return "verified" in result ? { ok: true, payer: result.verified.payer } : result;
    },
    async settlementCandidate(request: PaymentRequest, deps: PaymentDeps) {
      const result = await checked(request, deps);
      return "verified" in result ? definition.settlementCandidate(result.verified, result.terms, deps) : result;
    },
    replayKey(request: PaymentRequest, deps: PaymentDeps) {
      // A request that fails the requirement checks is never answered from a record.
      if (checkRequirements(request.paymentPayload, request.paymentRequirements, supportedKindOf(deps))) return null;
      const parsed = parseModeExtensions(request.paymentPayload.extensions);
      return isRejection(parsed) ? null : definition.replayKey(parsed);
    },
    async replayAuthorized(request: PaymentRequest, record: SettlementRecord, deps: PaymentDeps) {
      const parsed = parseModeExtensions(request.paymentPayload.extensions);
      return isRejection(parsed) ? false : definition.replayAuthorized(parsed, record, deps);
    },
  });
}

/**
 * For an `extensions.mode` that names no mode: the requirement checks, then the extensions'
 * parse, which refuses it (MODE_INVALID), exactly as a known mode's malformed extensions are.
 */
export function unknownModeHandler(): PaymentHandler {
  const refuse = async (request: PaymentRequest, deps: PaymentDeps): Promise<PaymentRefusal> => {
    const read = await readModeRequest(request, deps);
    return "ok" in read ? read : refused(reject("MODE_INVALID", "extensions.mode names no settlement mode"));
  };
  return Object.freeze({
    verify: refuse,
    settlementCandidate: refuse,
    replayKey: () => null,
    replayAuthorized: async () => false,
  });
}

/** The key a mode request would be recorded under, without touching the ledger; null if malformed. */
function modeRecordKeyOf(request: PaymentRequest): string | null {
  const parsed = parseModeExtensions(request.paymentPayload.extensions);
  return isRejection(parsed) ? null : modeSettlementKey(parsed.mode, parsed.paymentIdHex);
}

/**
 * The steps every mode shares: the requirement checks and payTo policy, then the extensions'
 * parse, the client's amount claim, and payTo and asset as addresses.
 */
async function readModeRequest(request: PaymentRequest, deps: PaymentDeps): Promise<Readonly<{ extensions: ModeExtensions; terms: ModeTerms }> | PaymentRefusal> {
  const problem = await checkPaymentRequirements(request, deps);
  if (problem) return refused(problem);
  const requirements = request.paymentRequirements;
  const extensions = parseModeExtensions(request.paymentPayload.extensions);
  if (isRejection(extensions)) return refused(extensions);
  // SECURITY: a client-stated amount is only a claim; the requirement's amount is what is checked.
  if (extensions.amount !== undefined && extensions.amount !== requirements.amount) {
    return refused(reject("AMOUNT_MISMATCH", `extensions.amount is ${extensions.amount}, expected ${requirements.amount}`), extensions.payer);
  }
  const { payTo, asset } = requirements;
  if (!isAddress(payTo)) return refused(reject("RECIPIENT_MISMATCH", `payTo ${payTo} is not a base58 address`), extensions.payer);
  if (!isAddress(asset)) return refused(reject("UNSUPPORTED_ASSET", `asset ${asset} is not a base58 address`), extensions.payer);
  return { extensions, terms: { request, payTo, asset, amount: requirements.amount } };
}
