import type { Address } from "@solana/kit";
import type { ModeExtensions } from "../../domain/modes/mode-extensions.ts";
import type { AtaDeriver } from "../../domain/payment/associated-token-account.ts";
import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import type { ModeName } from "../../domain/settlement/settlement-mode.ts";
import type { Rejection } from "../../domain/verification/rejection.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import type { SettlementCandidate } from "../settlement/settle-transaction.ts";
import { isRejection, modeRejected, type ModeRejected, type ModeVerificationResult, type ModeVerified } from "./mode-result.ts";

/** What every mode's checks and settlement may use. */
export type ModeDeps = Readonly<{
  ledger: Ledger;
  clock: Clock;
  /** The registry program (REGISTRY_PROGRAM_ID; default X84XXX...). */
  programId: Address;
  /** The facilitator's fee payers, read per request so a signer pool can change. */
  feePayers: () => readonly Address[];
  atas: AtaDeriver;
  /** Decimals of the accepted asset, for a transfer the facilitator builds itself. */
  assetDecimals: number;
}>;

/** The request with the requirements' payTo and asset already checked to be base58 addresses. */
export type ModeTerms = Readonly<{ request: PaymentRequest; payTo: Address; asset: Address; amount: bigint }>;

export type CandidateResult = Readonly<{ ok: true; candidate: SettlementCandidate }> | ModeRejected;

/**
 * Everything that differs between settlement modes, in one object per mode, registered in
 * mode-table.ts. The shared steps (requirement checks, extension parsing, the amount claim, the
 * already-settled lookup) run before any of these.
 */
export type ModePolicy = Readonly<{
  id: ModeName;
  /** Other values of `extensions.mode` that mean this mode. The first is the extension id /supported advertises. */
  aliases: readonly [string, ...string[]];
  /** This mode's own checks: a rejection, or what settlement needs. */
  check(extensions: ModeExtensions, terms: ModeTerms, deps: ModeDeps): Promise<ModeVerificationResult>;
  /** What /settle does with a checked payment: record it, or build a transaction to co-sign and submit. */
  settlementCandidate(verified: ModeVerified, terms: ModeTerms, deps: ModeDeps): Promise<CandidateResult>;
  /** The record key /settle may answer from WITHOUT checking again; null: check again first. */
  replayKey(extensions: ModeExtensions): string | null;
  /** Whether a request found settled under `replayKey` may be answered from that record. */
  replayAuthorized(extensions: ModeExtensions, record: SettlementRecord, deps: ModeDeps): Promise<boolean>;
}>;

/** A policy as written: `parse` narrows the extensions to what the mode needs, `check` gets only that. */
export type ModePolicyDefinition<Parsed> = Omit<ModePolicy, "check"> &
  Readonly<{
    parse(extensions: ModeExtensions): Parsed | Rejection;
    check(parsed: Parsed, terms: ModeTerms, deps: ModeDeps): Promise<ModeVerificationResult>;
  }>;

/** Joins a policy's parse and check, so the table holds policies of one type whatever each one parses to. */
export function defineModePolicy<Parsed extends object>(definition: ModePolicyDefinition<Parsed>): ModePolicy {
  const { parse, check, ...rest } = definition;
  return Object.freeze({
    ...rest,
    check: async (extensions: ModeExtensions, terms: ModeTerms, deps: ModeDeps) => {
      const parsed = parse(extensions);
      return isRejection(parsed) ? modeRejected(parsed) : check(parsed, terms, deps);
    },
  });
}
