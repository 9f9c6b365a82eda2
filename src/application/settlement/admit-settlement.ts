import { isCoded } from "../../domain/coded-error.ts";
import type { ReasonCode } from "../../domain/reason-codes.ts";
import type { LedgerPreflight } from "../payment/ledger-preflight.ts";
import { isLedgerError } from "../ports/ledger.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import { type BlockhashWindow, readBlockhashWindow } from "./blockhash-window.ts";
import type { CallerKind, FeeReservation } from "./fee-budget.ts";
import { answerFromPrevious, payerPaymentIdOf } from "./previous-settlement.ts";
import { LEDGER_UNAVAILABLE, STORE_UNAVAILABLE, type SettleResponse, settleFailure } from "./settle-response.ts";
import type { TransactionCandidate } from "../payment/settlement-candidate.ts";
import type { SettleTransactionDeps } from "./settle-transaction-deps.ts";

export type Admission =
  | Readonly<{ kind: "answered"; response: SettleResponse }>
  | Readonly<{ kind: "admitted"; lastValidBlockHeight: bigint; reservation: FeeReservation | null }>;

/**
 * Everything decided before our key signs. Three reads run at once (each batched with the other
 * settlements in flight): the store's record of this payment, the blockhash window, and the
 * ledger's preflight of the transaction (its simulation). They are judged in the spec's order, so
 * the answers are those of running them one after another: a record that exists wins (a settled
 * payment's funds are gone and its blockhash may be too, and its replay must still answer), then
 * the blockhash, then the preflight. Only then is the fee charged to the budgets.
 *
 * SECURITY: the budget is charged after the preflight, not beside it, so a payment the ledger would
 * refuse never holds any of the fee payer's budget, not even for the length of a simulation: a
 * flood of such payments cannot crowd honest ones out. Its attempt is charged to its signer's
 * budget alone (chargeRefusedAttempt), which bounds how often one payer may try.
 */
export async function admitSettlement(deps: SettleTransactionDeps, candidate: TransactionCandidate, caller: CallerKind): Promise<Admission> {
  const [previous, window, preflight] = await Promise.allSettled([
    deps.store.findExisting(candidate.key, payerPaymentIdOf(candidate)),
    deps.blockhashWindow ? deps.blockhashWindow(candidate.blockhash) : readBlockhashWindow(deps.ledger, candidate.blockhash),
    candidate.preflight(),
  ]);
  const refusal = await judgeReads(deps, candidate, previous, window, preflight);
  if (refusal) return { kind: "answered", response: refusal };
  if (window.status !== "fulfilled" || window.value.kind !== "valid") throw new Error("admitted without a valid blockhash window");
  const owner = preflight.status === "fulfilled" ? preflight.value.sourceOwner : null;
  const charged = await chargeBudget(deps, candidate, owner ?? candidate.payer, caller);
  if (charged.kind === "answered") return charged;
  return { kind: "admitted", lastValidBlockHeight: window.value.lastValidBlockHeight, reservation: charged.reservation };
}

/** The answer the pre-signing reads call for, or null to go on. Throws what is not a payment or availability problem. */
async function judgeReads(
  deps: SettleTransactionDeps,
  candidate: TransactionCandidate,
  previous: PromiseSettledResult<SettlementRecord | null>,
  window: PromiseSettledResult<BlockhashWindow>,
  preflight: PromiseSettledResult<LedgerPreflight>,
): Promise<SettleResponse | null> {
  const failure = (reason: ReasonCode, message: string) => settleFailure(deps.network, reason, message, candidate.payer);
  if (previous.status === "rejected") {
    if (!isCoded(previous.reason, "STORE_UNAVAILABLE")) throw previous.reason;
    deps.logger.warn("settlement store unavailable before signing", { key: candidate.key, error: previous.reason.message });
    return failure("SETTLEMENT_FAILED", `${STORE_UNAVAILABLE}; nothing was signed or submitted, retry later`);
  }
  if (previous.value && previous.value.state !== "failed") return answerFromPrevious(deps, previous.value, candidate);

  if (window.status === "rejected") throw window.reason;
  if (window.value.kind === "unavailable") {
    deps.logger.warn("ledger unavailable before signing", { key: candidate.key, error: window.value.error });
    return failure("SETTLEMENT_FAILED", `${LEDGER_UNAVAILABLE}; nothing was submitted, retry with the same transaction`);
  }
  if (window.value.kind === "expired") return failure("BLOCKHASH_EXPIRED", "the transaction's blockhash is no longer valid; build a new transaction");

  // SECURITY: nothing is signed that the ledger would refuse. Each co-signature may be a paid
  // KMS/HSM call, and a signed transaction that fails still costs its fee.
  if (preflight.status === "rejected") {
    if (!isLedgerError(preflight.reason)) throw preflight.reason;
    deps.logger.warn("ledger unavailable before signing", { key: candidate.key, error: preflight.reason.message });
    return failure("SETTLEMENT_FAILED", `${LEDGER_UNAVAILABLE}; nothing was signed or submitted, retry later`);
  }
  const rejection = preflight.value.rejection;
  if (rejection === null) return null;
  // SECURITY: charged to the signer who made the attempt, never to the source account's owner: a
  // refused transaction proves nothing about the source, so anyone could name a stranger's token
  // account as source and spend that stranger's budget. (A settlement that goes on is charged to
  // the owner: its successful simulation proves the signer may spend from the source.)
  await chargeRefusedAttempt(deps, candidate.payer, candidate.feeLamports);
  return failure(rejection.reason, rejection.message);
}

type Charged = Readonly<{ kind: "answered"; response: SettleResponse }> | Readonly<{ kind: "charged"; reservation: FeeReservation | null }>;

/** SECURITY: the fee is charged to both budgets before our key signs anything; a counter store that cannot answer signs nothing. */
async function chargeBudget(deps: SettleTransactionDeps, candidate: TransactionCandidate, payer: string, caller: CallerKind): Promise<Charged> {
  if (!deps.feeBudget) return { kind: "charged", reservation: null };
  const failure = (reason: ReasonCode, message: string): Charged => ({ kind: "answered", response: settleFailure(deps.network, reason, message, candidate.payer) });
  try {
    const verdict = await deps.feeBudget.reserve({ payer, feePayer: candidate.feePayer, lamports: candidate.feeLamports, caller });
    return verdict.ok ? { kind: "charged", reservation: verdict.reservation } : failure("FEE_BUDGET_EXCEEDED", verdict.message);
  } catch (error) {
    if (!isCounterStoreOutage(error)) throw error;
    deps.logger.warn("fee budget unavailable; nothing signed", { error: (error as Error).message });
    return failure("FEE_BUDGET_UNAVAILABLE", "the fee budget cannot be checked right now; nothing was signed or submitted, retry later");
  }
}

/** A refused attempt's charge is a bound, not a record: an unavailable counter store only skips it. */
async function chargeRefusedAttempt(deps: SettleTransactionDeps, payer: string, lamports: bigint): Promise<void> {
  if (!deps.feeBudget) return;
  try {
    await deps.feeBudget.chargeRefusedAttempt(payer, lamports);
  } catch (error) {
    if (!isCounterStoreOutage(error)) throw error;
    deps.logger.warn("refused attempt not charged: the fee budget is unavailable", { error: (error as Error).message });
  }
}

/** The counters live in Redis (COUNTERS_UNAVAILABLE) or in the database (STORE_UNAVAILABLE). */
function isCounterStoreOutage(error: unknown): boolean {
  return isCoded(error, "COUNTERS_UNAVAILABLE") || isCoded(error, "STORE_UNAVAILABLE");
}
