import { answerFromPrevious, awaitExisting, payerPaymentIdOf } from "./previous-settlement.ts";
import type { SettleResponse } from "./settle-response.ts";
import { describePaymentId, settleFailure, settleResultOf } from "./settle-response.ts";
import type { RecordCandidate } from "../payment/settlement-candidate.ts";
import type { SettleTransactionDeps } from "./settle-transaction-deps.ts";
import { draftOf } from "./settle-transaction.ts";

/**
 * Atomic and attestation modes: nothing is signed or sent, the verified on-chain payment is
 * recorded once. A second record of the same paymentId is a replay of the first.
 */
export async function recordSettlement(deps: SettleTransactionDeps, candidate: RecordCandidate, apiKey: string | null = null): Promise<SettleResponse> {
  const previous = await deps.store.findExisting(candidate.key, payerPaymentIdOf(candidate));
  if (previous) {
    const answer = await answerFromPrevious(deps, previous, candidate);
    if (answer) return answer;
    // A failed record may be recorded again: fall through to a new claim.
  }
  const claim = await deps.store.claim({ ...draftOf(candidate, deps.network, { signature: candidate.txSignature, wireTransaction: null, lastValidBlockHeight: null }), apiKey, receipt: candidate.receipt });
  if (claim.outcome === "exists") {
    if (claim.record.key !== candidate.key) {
      return settleFailure(deps.network, "ALREADY_SETTLED", `${describePaymentId(candidate.paymentId)} was already used for another payment`, candidate.payer);
    }
    return awaitExisting(deps, claim.record, candidate);
  }
  await deps.store.finish(candidate.key, candidate.txSignature, { state: "settled" });
  deps.logger.info("recorded mode settlement", { key: candidate.key, mode: candidate.mode, signature: candidate.txSignature });
  return settleResultOf({ ...claim.record, state: "settled" }, false);
}
