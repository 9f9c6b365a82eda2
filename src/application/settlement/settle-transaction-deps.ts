import type { Address, Signature } from "@solana/kit";
import type { Clock } from "../ports/clock.ts";
import type { Ledger, SignatureStatus } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import type { SettlementStore } from "../ports/settlement-store.ts";
import type { SignatureWatch } from "../ports/signature-watch.ts";
import type { Confirmer } from "./batched-confirmation.ts";
import type { BlockhashWindowReader } from "./blockhash-window.ts";
import type { ConfirmationPolicy } from "./confirm-transaction.ts";
import type { FeeBudget } from "./fee-budget.ts";

/** Signs raw message bytes with one of our fee payers (the signer pool in production). */
export type FeePayerSigning = (feePayer: Address, message: Uint8Array) => Promise<Uint8Array>;

/** Where a settled or failed transaction's fee went, for the lamports-spent metric. */
export type FeeSpentObserver = (outcome: "settled" | "failed", feePayer: string, lamports: bigint) => void;

export type SettleTransactionDeps = Readonly<{
  ledger: Ledger;
  store: SettlementStore;
  sign: FeePayerSigning;
  logger: Logger;
  network: string;
  confirmation?: ConfirmationPolicy;
  /**
   * SETTLE_CONFIRM_DEADLINE_MS: how long a settle waits for confirmation before answering
   * `settlement_pending` (confirmation goes on); absent, it waits for the outcome.
   */
  confirmDeadlineMs?: number;
  /** How long a duplicate waits for the winner of the claim before answering "in progress". */
  duplicateWaitMs?: number;
  /** Shared confirmation (one status poll for all in flight); default: a poll loop per settlement. */
  confirm?: Confirmer;
  /**
   * Told of a send before it happens (BatchedConfirmer.expect), so the node's pushed confirmation
   * is asked for while the claim commits; returns the function that stops waiting for it.
   */
  expectConfirmation?: (signature: Signature) => () => void;
  /** Called in the send's turn: a status look leaving with the send (BatchedConfirmer.lookWithSend), for `confirm`. */
  lookWithSend?: (signature: Signature) => Promise<SignatureStatus | null> | undefined;
  /** The node's pushed confirmations (signatureSubscribe); absent, confirmation polls only. */
  signatureWatch?: SignatureWatch;
  /** Shared blockhash reads; default: two RPC calls per settlement. */
  blockhashWindow?: BlockhashWindowReader;
  /** Per-payer and per-fee-payer spending limits; absent means unlimited (unit tests only). */
  feeBudget?: FeeBudget;
  onFeeSpent?: FeeSpentObserver;
  /** Time for confirmation and duplicate-wait deadlines; default the system clock. */
  clock?: Clock;
}>;

