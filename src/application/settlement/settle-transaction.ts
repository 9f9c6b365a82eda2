import {
  type Address,
  type Signature,
  type SignatureBytes,
  type Transaction,
  getBase58Decoder,
  getBase64Decoder,
  getTransactionEncoder,
} from "@solana/kit";
import { isCoded } from "../../domain/coded-error.ts";
import type { ReasonCode } from "../../domain/reason-codes.ts";
import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import type { Rejection } from "../../domain/verification/rejection.ts";
import { type Clock, nowOf } from "../ports/clock.ts";
import { type Ledger, isLedgerError } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import {
  type BudgetedClaimResult,
  type PaymentTerms,
  type SettlementDraft,
  type SettlementRecord,
  type SettlementStore,
  type SpendingBudget,
} from "../ports/settlement-store.ts";
import type { Confirmer } from "./batched-confirmation.ts";
import { type BlockhashWindow, type BlockhashWindowReader, readBlockhashWindow } from "./blockhash-window.ts";
import { type ConfirmationPolicy, confirmTransaction } from "./confirm-transaction.ts";
import type { FeeBudget, FeeBudgetVerdict, FeeReservation } from "./fee-budget.ts";
import { answerFromPrevious, awaitExisting, payerPaymentIdOf } from "./previous-settlement.ts";
import { type SettleResponse, describePaymentId, settleFailure } from "./settle-response.ts";
import { submitTransaction } from "./submit-transaction.ts";

/** Signs raw message bytes with one of our fee payers (the signer pool in production). */
export type FeePayerSigning = (feePayer: Address, message: Uint8Array) => Promise<Uint8Array>;

/** What a verified payment leads to: a transaction to co-sign and submit, or a record only. */
export type SettlementCandidate = TransactionCandidate | RecordCandidate;

/**
 * Atomic and attestation modes: the client already landed the transfer (`txSignature`), so
 * settlement only records it, exactly once per paymentId.
 */
export type RecordCandidate = PaymentTerms &
  Readonly<{
    kind: "record";
    mode: "atomic" | "attestation";
    txSignature: string;
  }>;

/** A verified transaction that only lacks our fee-payer signature. */
export type TransactionCandidate = PaymentTerms &
  Readonly<{
    kind: "transaction";
    mode: SettlementMode;
    feePayer: Address;
    transaction: Transaction;
    /** The message's recent blockhash, re-checked just before signing. */
    blockhash: string;
    /** Client-side delegated payments: the Delegation budget the claim is charged to. */
    budget?: SpendingBudget;
    /** What landing the transaction costs our fee payer, charged to the fee budget before signing. */
    feeLamports: bigint;
    /** Shows the payment fundable on the ledger as it is now; run before anything is signed. */
    checkFundable?: () => Promise<Rejection | null>;
  }>;

/** Where a settled or failed transaction's fee went, for the lamports-spent metric. */
export type FeeSpentObserver = (outcome: "settled" | "failed", feePayer: string, lamports: bigint) => void;

export type SettleTransactionDeps = Readonly<{
  ledger: Ledger;
  store: SettlementStore;
  sign: FeePayerSigning;
  logger: Logger;
  network: string;
  confirmation?: ConfirmationPolicy;
  /** How long a duplicate waits for the winner of the claim before answering "in progress". */
  duplicateWaitMs?: number;
  /** Shared confirmation (one status poll for all in flight); default: a poll loop per settlement. */
  confirm?: Confirmer;
  /** Shared blockhash reads; default: two RPC calls per settlement. */
  blockhashWindow?: BlockhashWindowReader;
  /** Per-payer and per-fee-payer spending limits; absent means unlimited (unit tests only). */
  feeBudget?: FeeBudget;
  onFeeSpent?: FeeSpentObserver;
  /** Time for confirmation and duplicate-wait deadlines; default the system clock. */
  clock?: Clock;
}>;

/**
 * Steps 3-6 of the spec's settle order: idempotency check, co-sign, claim, submit, confirm,
 * persist. The claim is made with our signature already known, so a crash at any later point
 * leaves a record that recovery can finish from the ledger alone.
 */
export async function settleTransaction(deps: SettleTransactionDeps, candidate: TransactionCandidate): Promise<SettleResponse> {
  const admitted = await admit(deps, candidate);
  if (admitted.kind === "answered") return admitted.response;
  return signClaimAndSubmit(deps, candidate, admitted.lastValidBlockHeight, admitted.reservation);
}

type Admission =
  | Readonly<{ kind: "answered"; response: SettleResponse }>
  | Readonly<{ kind: "admitted"; lastValidBlockHeight: bigint; reservation: FeeReservation | null }>;

/**
 * Everything decided before our key signs, as four reads that run at once (each batched with the
 * other settlements in flight): the store's record of this payment, the blockhash window, the
 * payer's and payee's token accounts, and the fee budget's charge. They are judged in the spec's
 * order, so the answers are those of running them one after another: a record that exists wins
 * (a settled payment's funds are gone and its blockhash may be too, and its replay must still
 * answer), then the blockhash, the funds, the budget. Anything but "go on" gives the fee back.
 */
async function admit(deps: SettleTransactionDeps, candidate: TransactionCandidate): Promise<Admission> {
  const { ledger, network } = deps;
  const [previous, window, funds, budget] = await Promise.allSettled([
    deps.store.findExisting(candidate.key, payerPaymentIdOf(candidate)),
    deps.blockhashWindow ? deps.blockhashWindow(candidate.blockhash) : readBlockhashWindow(ledger, candidate.blockhash),
    candidate.checkFundable ? candidate.checkFundable() : Promise.resolve(null),
    deps.feeBudget ? deps.feeBudget.reserve({ payer: candidate.payer, feePayer: candidate.feePayer, lamports: candidate.feeLamports }) : Promise.resolve(null),
  ]);
  const reservation = budget.status === "fulfilled" && budget.value?.ok ? budget.value.reservation : null;
  let response: SettleResponse | null;
  try {
    response = await judge(deps, candidate, previous, window, funds, budget);
  } catch (error) {
    await giveBack(deps, reservation);
    throw error;
  }
  if (response) {
    await giveBack(deps, reservation);
    return { kind: "answered", response };
  }
  const lastValidBlockHeight = window.status === "fulfilled" && window.value.kind === "valid" ? window.value.lastValidBlockHeight : null;
  if (lastValidBlockHeight === null) throw new Error("admitted without a valid blockhash window");
  return { kind: "admitted", lastValidBlockHeight, reservation };
}

/** The answer the pre-signing reads call for, or null to sign. Throws what is not a payment or availability problem. */
async function judge(
  deps: SettleTransactionDeps,
  candidate: TransactionCandidate,
  previous: PromiseSettledResult<SettlementRecord | null>,
  window: PromiseSettledResult<BlockhashWindow>,
  funds: PromiseSettledResult<Rejection | null>,
  budget: PromiseSettledResult<FeeBudgetVerdict | null>,
): Promise<SettleResponse | null> {
  const { network } = deps;
  const failure = (reason: ReasonCode, message: string) => settleFailure(network, reason, message, candidate.payer);
  if (previous.status === "rejected") return storeUnavailableBeforeSigning(deps, candidate, previous.reason);
  if (previous.value && previous.value.state !== "failed") return answerFromPrevious(deps, previous.value, candidate);

  if (window.status === "rejected") throw window.reason;
  if (window.value.kind === "unavailable") {
    deps.logger.warn("ledger unavailable before signing", { key: candidate.key, error: window.value.error });
    return failure("SETTLEMENT_FAILED", `${LEDGER_UNAVAILABLE}; nothing was submitted, retry with the same transaction`);
  }
  if (window.value.kind === "expired") return failure("BLOCKHASH_EXPIRED", "the transaction's blockhash is no longer valid; build a new transaction");

  // SECURITY: one KMS/HSM signature per anonymous request is a cost; an unfundable payment gets none.
  if (funds.status === "rejected") {
    if (!isLedgerError(funds.reason)) throw funds.reason;
    deps.logger.warn("ledger unavailable before signing", { key: candidate.key, error: funds.reason.message });
    return failure("SETTLEMENT_FAILED", `${LEDGER_UNAVAILABLE}; nothing was signed or submitted, retry later`);
  }
  if (funds.value) return failure(funds.value.reason, funds.value.message);

  // SECURITY: the fee is charged to the budgets before our key signs anything.
  if (budget.status === "rejected") return storeUnavailableBeforeSigning(deps, candidate, budget.reason);
  if (budget.value && !budget.value.ok) return failure("FEE_BUDGET_EXCEEDED", budget.value.message);
  return null;
}

/**
 * SECURITY: what clients read about an unavailable dependency. The store's and the ledger's own
 * messages name the database (host, port, name) or the RPC endpoint; they go to the log, and the
 * client gets these words only.
 */
export const LEDGER_UNAVAILABLE = "the ledger is unavailable";
export const STORE_UNAVAILABLE = "the settlement store is unavailable";

function storeUnavailableBeforeSigning(deps: SettleTransactionDeps, candidate: TransactionCandidate, error: unknown): SettleResponse {
  if (!isCoded(error, "STORE_UNAVAILABLE")) throw error;
  deps.logger.warn("settlement store unavailable before signing", { key: candidate.key, error: error.message });
  return settleFailure(deps.network, "SETTLEMENT_FAILED", `${STORE_UNAVAILABLE}; nothing was signed or submitted, retry later`, candidate.payer);
}

/** Gives the fee back when nothing landed; a store hiccup here only leaves the budget conservative. */
async function giveBack(deps: SettleTransactionDeps, reservation: FeeReservation | null): Promise<void> {
  if (!reservation || !deps.feeBudget) return;
  try {
    await deps.feeBudget.release(reservation);
  } catch (error) {
    deps.logger.warn("fee budget release failed; the budget stays charged", { error });
  }
}

async function signClaimAndSubmit(
  deps: SettleTransactionDeps,
  candidate: TransactionCandidate,
  lastValidBlockHeight: bigint,
  reservation: FeeReservation | null,
): Promise<SettleResponse> {
  const { ledger, store, network } = deps;
  let claimed: SignedClaim;
  try {
    claimed = await signAndClaim(deps, candidate, lastValidBlockHeight);
  } catch (error) {
    // The claim may have committed before the connection broke: nothing was sent by this request,
    // but recovery will send the stored bytes if it did. The fee stays charged for that case.
    if (isCoded(error, "STORE_UNAVAILABLE")) {
      deps.logger.warn("settlement claim not confirmed by the store; left to reconciliation", { key: candidate.key, error: error.message });
      return settleFailure(
        network,
        "SETTLEMENT_FAILED",
        `the settlement store did not confirm the claim; this request sent nothing, but if the claim was recorded, reconciliation will send it: retry with the same transaction for its final result, do not build a new one`,
        candidate.payer,
      );
    }
    // Nothing was sent: a signer or store failure leaves the fee unspent.
    await giveBack(deps, reservation);
    throw error;
  }
  const { claim, wire, signature } = claimed;
  if (claim.outcome !== "claimed") await giveBack(deps, reservation);
  if (claim.outcome === "over-budget") {
    return settleFailure(
      network,
      "DELEGATION_BUDGET_EXCEEDED",
      `the Delegation's budget is spent: ${claim.spent} base units and ${claim.uses} uses are already charged to it by this facilitator`,
      candidate.payer,
    );
  }
  if (claim.outcome === "exists") {
    // SECURITY: the paymentId is held by another transaction; never answer with that payment's result.
    if (claim.record.key !== candidate.key) {
      return settleFailure(network, "ALREADY_SETTLED", `${describePaymentId(candidate.paymentId)} was already used for another transaction`, candidate.payer);
    }
    return awaitExisting(deps, claim.record, candidate);
  }

  // From here the record is `pending` with the signed bytes: possibly sent, as recovery assumes.
  const log = deps.logger.child({ key: candidate.key, signature });
  const submission = await submitTransaction(ledger, wire, signature);
  if (submission.kind === "rejected") {
    // SECURITY: the refused send cost no fee, but it cost a signature (a paid KMS/HSM call) for a
    // transaction only execution could refuse (a compute limit too low, say). Its charge stays,
    // so such attempts are bounded by the payer's and the fee payer's budgets.
    // Nothing landed, so a store failure here only leaves an open record for recovery to fail.
    await persistQuietly(log, async () => void (await store.finish(candidate.key, signature, { state: "failed", error: submission.error })));
    log.info("settlement rejected by the ledger", { error: submission.error });
    return settleFailure(network, "SETTLEMENT_FAILED", submission.error, candidate.payer);
  }

  const outcome = await (deps.confirm ? deps.confirm(signature, lastValidBlockHeight) : confirmTransaction(ledger, signature, lastValidBlockHeight, deps.confirmation, nowOf(deps.clock)));
  switch (outcome.kind) {
    case "confirmed":
      await persistQuietly(log, async () => {
        if (!(await store.finish(candidate.key, signature, { state: "settled" }))) {
          log.error("confirmed on the ledger but the record was already final or retaken", { state: (await store.get(candidate.key))?.state });
        }
      });
      deps.onFeeSpent?.("settled", candidate.feePayer, candidate.feeLamports);
      log.info("settled", { payer: candidate.payer, amount: candidate.amount });
      return {
        success: true,
        transaction: signature,
        network,
        payer: candidate.payer,
        extensions: { mode: candidate.mode, ...(candidate.paymentId ? { paymentId: candidate.paymentId } : {}) },
      };
    case "failed":
    case "expired": {
      // A transaction that failed on chain was charged its fee; an expired one never landed.
      if (outcome.kind === "failed") deps.onFeeSpent?.("failed", candidate.feePayer, candidate.feeLamports);
      else await giveBack(deps, reservation);
      const error = outcome.kind === "failed" ? `transaction failed on-chain: ${outcome.error}` : "blockhash expired before the transaction was confirmed";
      await persistQuietly(log, async () => void (await store.finish(candidate.key, signature, { state: "failed", error })));
      return settleFailure(network, "SETTLEMENT_FAILED", error, candidate.payer);
    }
    case "unknown":
      // The record stays `pending`; recovery settles or fails it from the ledger later.
      log.warn("confirmation unknown; left for reconciliation", { reason: outcome.reason });
      return settleFailure(
        network,
        "SETTLEMENT_FAILED",
        `confirmation could not be obtained (${outcome.reason}); the settlement is recorded and will be reconciled, retry with the same transaction for its final result`,
        candidate.payer,
      );
  }
}

type SignedClaim = Readonly<{ claim: BudgetedClaimResult; wire: Uint8Array; signature: Signature }>;

/** Co-signs and claims: the claim stores our signature and the signed bytes before any send. */
async function signAndClaim(deps: SettleTransactionDeps, candidate: TransactionCandidate, lastValidBlockHeight: bigint): Promise<SignedClaim> {
  const signatureBytes = await deps.sign(candidate.feePayer, new Uint8Array(candidate.transaction.messageBytes));
  const signed: Transaction = {
    ...candidate.transaction,
    signatures: { ...candidate.transaction.signatures, [candidate.feePayer]: signatureBytes as SignatureBytes },
  };
  const wire = new Uint8Array(getTransactionEncoder().encode(signed));
  const signature = getBase58Decoder().decode(signatureBytes) as Signature;
  const draft = draftOf(candidate, deps.network, { signature, wireTransaction: getBase64Decoder().decode(wire), lastValidBlockHeight });
  const claim = candidate.budget ? await deps.store.claimWithinBudget(draft, candidate.budget) : await deps.store.claim(draft);
  return { claim, wire, signature };
}

/** What a claim stores: the candidate's terms plus what this attempt sends (nothing, for a record). */
export function draftOf(
  candidate: PaymentTerms & Readonly<{ mode: SettlementMode }>,
  network: string,
  attempt: Pick<SettlementDraft, "signature" | "wireTransaction" | "lastValidBlockHeight">,
): SettlementDraft {
  const { key, paymentId, payer, payTo, asset, amount, mode } = candidate;
  return { key, paymentId, payer, payTo, asset, amount, network, mode, ...attempt };
}

/**
 * After the transaction was sent, a store failure must not turn a landed payment into an
 * error answer: the claim (with signature) is already durable and recovery completes it.
 */
async function persistQuietly(log: Logger, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    log.error("settlement record update failed; recovery will complete it", { error });
  }
}
