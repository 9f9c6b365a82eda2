import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import type { PaymentDeps } from "./payment-deps.ts";
import type { PaymentRefusal } from "./payment-refusal.ts";
import type { SettlementCandidate } from "./settlement-candidate.ts";

/** What /verify answers for a payment that passed: who pays. */
export type PaymentAccepted = Readonly<{ ok: true; payer: string }>;

export type PaymentVerdict = PaymentAccepted | PaymentRefusal;

export type CandidateResult = Readonly<{ ok: true; candidate: SettlementCandidate }> | PaymentRefusal;

/**
 * Everything that differs between kinds of payment, one object per settlement mode (standard
 * included), registered in mode-table.ts: the payment pipeline dispatches there and nowhere else.
 */
export type ModePolicy = Readonly<{
  id: SettlementMode;
  /** Values of `extensions.mode` that name this mode; the first is the extension id /supported advertises. None for standard. */
  aliases: readonly string[];
  /** /verify: every check of this kind of payment, the ledger's included. */
  verify(request: PaymentRequest, deps: PaymentDeps): Promise<PaymentVerdict>;
  /** /settle: the checks settlement needs, then what it does: record the payment, or a transaction to co-sign and submit. */
  settlementCandidate(request: PaymentRequest, deps: PaymentDeps): Promise<CandidateResult>;
  /** The record key /settle may answer from WITHOUT checking again; null: check again first. */
  replayKey(request: PaymentRequest, deps: PaymentDeps): string | null;
  /** Whether a request found settled under `replayKey` may be answered from that record. */
  replayAuthorized(request: PaymentRequest, record: SettlementRecord, deps: PaymentDeps): Promise<boolean>;
}>;

/** What the pipeline runs for one request: a mode's policy, or the refusal of a mode it does not know. */
export type PaymentHandler = Pick<ModePolicy, "verify" | "settlementCandidate" | "replayKey" | "replayAuthorized">;
