import type { Signature, SignatureBytes, Transaction } from "@solana/kit";
import { base58Text } from "@x84/solana-wire";
import { isCoded } from "../../domain/coded-error.ts";
import { toBase64 } from "../../domain/codecs/base64.ts";
import { transactionWire } from "../../domain/transaction/transaction-wire.ts";
import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import { nowOf, systemClock } from "../ports/clock.ts";
import type { Logger } from "../ports/logger.ts";
import type { BudgetedClaimResult, PaymentTerms, SettlementDraft } from "../ports/settlement-store.ts";
import { admitSettlement } from "./admit-settlement.ts";
import { type ConfirmationOutcome, confirmTransaction } from "./confirm-transaction.ts";
import type { CallerKind, FeeReservation } from "./fee-budget.ts";
import { awaitExisting } from "./previous-settlement.ts";
import { type SettleResponse, describePaymentId, settleFailure, settlementPending } from "./settle-response.ts";
import type { TransactionCandidate } from "../payment/settlement-candidate.ts";
import { settleLanded } from "./settle-landed.ts";
import type { SettleTransactionDeps } from "./settle-transaction-deps.ts";
import { submitTransaction } from "./submit-transaction.ts";

/**
 * Steps 3-6 of the spec's settle order: idempotency check, co-sign, claim, submit, confirm,
 * persist. The claim is made with our signature already known, so a crash at any later point
 * leaves a record that recovery can finish from the ledger alone.
 */
export async function settleTransaction(
  deps: SettleTransactionDeps,
  candidate: TransactionCandidate,
  caller: CallerKind = "anonymous",
  apiKey: string | null = null,
): Promise<SettleResponse> {
  const admitted = await admitSettlement(deps, candidate, caller);
  if (admitted.kind === "answered") return admitted.response;
  return signClaimAndSubmit(deps, candidate, admitted.lastValidBlockHeight, admitted.reservation, apiKey);
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
  apiKey: string | null,
): Promise<SettleResponse> {
  const { ledger, store, network } = deps;
  let claimed: SignedClaim;
  try {
    claimed = await signAndClaim(deps, candidate, lastValidBlockHeight, reservation, apiKey);
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
  const { claim, wire, signature, stopWatching } = claimed;
  if (claim.outcome !== "claimed") {
    stopWatching();
    await giveBack(deps, reservation);
  }
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
  const sending = submitTransaction(ledger, wire, signature);
  // Asked in the send's turn, so it leaves in the same batch, after the send: a ledger that
  // confirms at once answers it with the send, one hop (and the first-look wait) less.
  const firstLook = deps.lookWithSend?.(signature);
  firstLook?.catch(() => {}); // a failed look only leaves the polls to decide
  const submission = await sending.catch((error: unknown) => {
    stopWatching();
    throw error;
  });
  if (submission.kind === "rejected") {
    stopWatching();
    // The preflight passed, so this is rare (a blockhash that expired in between, a node that
    // changed its mind). Nothing landed: the charge is given back, it stands only for real spend.
    // A store failure here only leaves an open record for recovery to fail.
    await giveBack(deps, reservation);
    await persistQuietly(log, async () => void (await store.finish(candidate.key, signature, { state: "failed", error: submission.error })));
    log.info("settlement rejected by the ledger", { error: submission.error });
    return settleFailure(network, "SETTLEMENT_FAILED", submission.error, candidate.payer);
  }

  // Kept with the record's next write (its finish, or the pending mark) for status lookups.
  const submittedAt = new Date((deps.clock ?? systemClock).now());
  const confirmation = (deps.confirm ? deps.confirm(signature, lastValidBlockHeight, firstLook) : confirmTransaction(ledger, signature, lastValidBlockHeight, deps.confirmation, nowOf(deps.clock))).finally(stopWatching);
  const finishing = confirmation.then((outcome) => finishConfirmation(deps, candidate, signature, reservation, log, outcome, submittedAt));
  if (deps.confirmDeadlineMs === undefined) return finishing;
  // SETTLE_CONFIRM_DEADLINE_MS: past it the client is told the settlement is pending, with the
  // broadcast signature (the stock x402 packages retry once on `settlement_pending`); confirmation
  // and the record's finish go on here, and a retry of the same payment answers from the record.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pastDeadline = new Promise<typeof PAST_DEADLINE>((resolve) => {
    timer = setTimeout(() => resolve(PAST_DEADLINE), deps.confirmDeadlineMs);
  });
  // The timer goes as soon as the outcome is in: a pending timer would hold a stopping process.
  const answered = await Promise.race([finishing, pastDeadline]).finally(() => clearTimeout(timer));
  if (answered !== PAST_DEADLINE) return answered;
  finishing.catch((error: unknown) => log.error("settlement finish failed after its answer; recovery will complete it", { error }));
  log.info("settlement pending past the confirmation deadline", { deadlineMs: deps.confirmDeadlineMs });
  // Status lookups and the `settlement.pending` webhook event; a store failure only loses the mark.
  await persistQuietly(log, async () => void (await store.markPending(candidate.key, signature, submittedAt)));
  return settlementPending(network, signature, candidate.payer);
}

const PAST_DEADLINE = Symbol("past the confirmation deadline");

/** The record's final state from the confirmation's outcome, and the answer that goes with it. */
async function finishConfirmation(
  deps: SettleTransactionDeps,
  candidate: TransactionCandidate,
  signature: Signature,
  reservation: FeeReservation | null,
  log: Logger,
  outcome: ConfirmationOutcome,
  submittedAt: Date,
): Promise<SettleResponse> {
  const { store, network } = deps;
  switch (outcome.kind) {
    case "confirmed":
      await persistQuietly(log, async () => {
        const slot = outcome.slot ?? null;
        // Already final (failed meanwhile, say): the ledger is the truth, so the record is corrected.
        if (!(await store.finish(candidate.key, signature, { state: "settled" }, { slot, submittedAt }))) await settleLanded(store, log, candidate.key, signature, slot);
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
      const slot = outcome.kind === "failed" ? (outcome.slot ?? null) : null;
      await persistQuietly(log, async () => void (await store.finish(candidate.key, signature, { state: "failed", error }, { slot, submittedAt })));
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

type SignedClaim = Readonly<{ claim: BudgetedClaimResult; wire: Uint8Array; signature: Signature; stopWatching: () => void }>;

/** Co-signs and claims: the claim stores our signature and the signed bytes before any send. */
async function signAndClaim(
  deps: SettleTransactionDeps,
  candidate: TransactionCandidate,
  lastValidBlockHeight: bigint,
  feeCharge: FeeReservation | null,
  apiKey: string | null,
): Promise<SignedClaim> {
  const signatureBytes = await deps.sign(candidate.feePayer, new Uint8Array(candidate.transaction.messageBytes));
  const signed: Transaction = {
    ...candidate.transaction,
    signatures: { ...candidate.transaction.signatures, [candidate.feePayer]: signatureBytes as SignatureBytes },
  };
  const wire = transactionWire(signed);
  const signature = base58Text(signatureBytes) as Signature;
  const draft = { ...draftOf(candidate, deps.network, { signature, wireTransaction: toBase64(wire), lastValidBlockHeight }), feeCharge, apiKey };
  // Asked now, beside the claim's commit: a node pushes the confirmation as soon as the send lands.
  const stopWatching = deps.expectConfirmation?.(signature) ?? (() => {});
  try {
    const claim = candidate.budget ? await deps.store.claimWithinBudget(draft, candidate.budget) : await deps.store.claim(draft);
    return { claim, wire, signature, stopWatching };
  } catch (error) {
    stopWatching();
    throw error;
  }
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
