import type { Address, Transaction } from "@solana/kit";
import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import type { LedgerPreflight } from "../ledger-preflight.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { Logger } from "../ports/logger.ts";
import type { PaymentTerms, SettlementStore, SpendingBudget } from "../ports/settlement-store.ts";
import type { Confirmer } from "./batched-confirmation.ts";
import type { BlockhashWindowReader } from "./blockhash-window.ts";
import type { ConfirmationPolicy } from "./confirm-transaction.ts";
import type { FeeBudget } from "./fee-budget.ts";

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
    /**
     * The ledger's verdict on the transaction as it is now (its simulation): run before anything
     * is signed, and the only simulation a settlement gets (the send skips preflight).
     */
    preflight: () => Promise<LedgerPreflight>;
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

