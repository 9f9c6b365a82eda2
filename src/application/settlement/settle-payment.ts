import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import { nowOf } from "../ports/clock.ts";
import { isLedgerError } from "../ports/ledger.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import { type BatchedConfirmer, createBatchedConfirmer } from "./batched-confirmation.ts";
import { createBlockhashWindowReader } from "./blockhash-window.ts";
import type { CallerKind } from "./fee-budget.ts";
import { termsConflict } from "./previous-settlement.ts";
import { recordSettlement } from "./record-settlement.ts";
import { type SettleResponse, settleFailure, settleResultOf, settledUnderOtherPaymentId } from "./settle-response.ts";
import type { SettlementCandidate, VerifyForSettlement } from "../payment/settlement-candidate.ts";
import type { SettleTransactionDeps } from "./settle-transaction-deps.ts";
import { settleTransaction } from "./settle-transaction.ts";
import { LEDGER_UNAVAILABLE } from "./settle-response.ts";

const ANONYMOUS: SettleContext = Object.freeze({ caller: "anonymous" });

/**
 * Who is asking: an API-key caller may spend the fee payer's reserved budget share
 * (FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT); `apiKey` (the key's name) is recorded with the
 * settlement, which status lookups and webhooks are scoped by.
 */
export type SettleContext = Readonly<{ caller: CallerKind; apiKey?: string | null }>;

export type SettlementService = Readonly<{
  settle(request: PaymentRequest, context?: SettleContext): Promise<SettleResponse>;
  /** Settlements currently executing in this process (graceful shutdown waits for them). */
  inFlight(): number;
  /** Resolves when no settlement is executing in this process. */
  drain(): Promise<void>;
}>;

/**
 * The spec's settle order: verify, idempotency check, then co-sign/submit/confirm/persist.
 * Duplicates inside one process share the winner's promise; duplicates across processes find
 * the record before signing, or meet at the store's unique claim, and wait for the stored
 * result. Nothing is submitted twice.
 */
export function createSettlementService(
  deps: SettleTransactionDeps &
    Readonly<{
      verify: VerifyForSettlement;
      /**
       * The key a request would be recorded under when it is known before verification (mode
       * payments: derived from paymentId). A settled record under it is replayed without
       * re-verifying, because its checks (proof window, allowance) no longer hold once it was paid.
       */
      replayKeyOf?: (request: PaymentRequest) => string | null;
      /**
       * SETTLE_DUPLICATES. `replay` (default, the spec): a settle after the first answers the original
       * success with `extensions.replayed`. `reject`: it answers DUPLICATE_SETTLEMENT, for resource
       * servers (the stock x402 middleware) that deliver on any `success: true`.
       */
      duplicates?: "replay" | "reject";
      /** Whether a request found settled under `replayKeyOf` may be answered from that record. */
      replayAuthorized?: (request: PaymentRequest, record: SettlementRecord) => Promise<boolean>;
    }>,
): SettlementService {
  const running = new Map<string, Readonly<{ paymentId: string | null; execution: Promise<SettleResponse> }>>();
  // One status poll and one blockhash read serve every settlement in flight (see each factory).
  // The node's pushed confirmations, when it has a pubsub, spare each settlement its first status look.
  const confirmer = deps.confirm ? null : createBatchedConfirmer(deps.ledger, deps.confirmation, nowOf(deps.clock), deps.signatureWatch);
  const steps: SettleTransactionDeps = {
    ...deps,
    confirm: deps.confirm ?? (confirmer as BatchedConfirmer),
    ...(confirmer && deps.signatureWatch ? { expectConfirmation: confirmer.expect } : {}),
    ...(confirmer ? { lookWithSend: confirmer.lookWithSend } : {}),
    blockhashWindow: deps.blockhashWindow ?? createBlockhashWindowReader(deps.ledger),
  };

  const answer = deps.duplicates === "reject" ? refuseDuplicate : (response: SettleResponse) => response;

  async function settle(request: PaymentRequest, context: SettleContext = ANONYMOUS): Promise<SettleResponse> {
    const response = await settleOnce(request, context.caller, context.apiKey ?? null);
    if (response.success && response.extensions?.["replayed"] === true) await markReplayed(response.transaction);
    return answer(response);
  }

  /** Status lookups say whether a settled payment was presented again; losing the mark to a store hiccup changes no answer. */
  async function markReplayed(signature: string): Promise<void> {
    try {
      await deps.store.markReplayed(deps.network, signature);
    } catch (error) {
      deps.logger.warn("replay not recorded", { signature, error });
    }
  }

  async function settleOnce(request: PaymentRequest, caller: CallerKind, apiKey: string | null): Promise<SettleResponse> {
    const replay = await settledReplay(request);
    if (replay) return replay;
    const verified = await verifyOrUnavailable(request);
    if (!verified.ok) return settleFailure(deps.network, verified.reason, verified.message, verified.payer);
    const candidate = verified.candidate;

    const shared = running.get(candidate.key);
    if (shared) {
      if (shared.paymentId !== candidate.paymentId) return settledUnderOtherPaymentId(deps.network, candidate.payer);
      return asReplay(await shared.execution);
    }
    // Registered before the first await below: a duplicate arriving while the store lookup is
    // in flight must join this execution, not co-sign (a KMS/HSM call) and claim on its own.
    const execution = settleCandidate(candidate, caller, apiKey).finally(() => running.delete(candidate.key));
    running.set(candidate.key, { paymentId: candidate.paymentId, execution });
    return execution;
  }

  /** Mode checks read the ledger; an outage there is a failed settlement, not a 500. */
  async function verifyOrUnavailable(request: PaymentRequest): ReturnType<VerifyForSettlement> {
    try {
      return await deps.verify(request);
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      deps.logger.warn("ledger unavailable while verifying for settlement", { error: error.message });
      return { ok: false, reason: "SETTLEMENT_FAILED", message: `${LEDGER_UNAVAILABLE}; nothing was submitted, retry later` };
    }
  }

  /** Each path starts with the idempotency check: the record holding this key or paymentId. */
  function settleCandidate(candidate: SettlementCandidate, caller: CallerKind, apiKey: string | null): Promise<SettleResponse> {
    return candidate.kind === "record" ? recordSettlement(steps, candidate, apiKey) : settleTransaction(steps, candidate, caller, apiKey);
  }

  async function settledReplay(request: PaymentRequest): Promise<SettleResponse | null> {
    const key = deps.replayKeyOf?.(request);
    if (!key) return null;
    const record = await deps.store.get(key);
    if (!record || record.state !== "settled") return null;
    const { payTo, asset, amount } = request.paymentRequirements;
    if (termsConflict(record, { payTo, asset, amount })) return null;
    if (deps.replayAuthorized && !(await deps.replayAuthorized(request, record))) return null;
    return settleResultOf(record, true);
  }

  return Object.freeze({
    settle,
    inFlight: () => running.size,
    drain: async () => {
      while (running.size > 0) await Promise.allSettled([...running.values()].map((r) => r.execution));
    },
  });
}

/**
 * SECURITY (SETTLE_DUPLICATES=reject): one payment buys one response. Every replayed success, from
 * this process, another replica or the store, is turned into a refusal that still names the
 * original transaction, so an honest client that lost the first answer can find its payment.
 */
function refuseDuplicate(response: SettleResponse): SettleResponse {
  if (!response.success || response.extensions?.["replayed"] !== true) return response;
  return {
    ...settleFailure(
      response.network,
      "DUPLICATE_SETTLEMENT",
      "this payment was already settled; it is answered once (SETTLE_DUPLICATES=reject), see extensions.originalTransaction",
      response.payer,
    ),
    extensions: { originalTransaction: response.transaction },
  };
}

function asReplay(response: SettleResponse): SettleResponse {
  if (!response.success) return response;
  return { ...response, extensions: { ...response.extensions, replayed: true } };
}
