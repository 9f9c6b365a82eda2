import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";

/**
 * `pending`: claimed, our signature and the signed bytes stored, possibly sent. `settled` and
 * `failed` are final. `submitted` is only found in records written before sends stopped being
 * recorded (it meant "sent"; recovery treats it exactly like `pending`).
 */
export type SettlementState = "pending" | "submitted" | "settled" | "failed";

/** A payment's idempotency key and terms: what a settle request is compared with and its record keeps. */
export type PaymentTerms = Readonly<{
  /** Idempotency key: hex SHA-256 of the transaction message bytes (or of the mode's proof). */
  key: string;
  paymentId: string | null;
  payer: string;
  payTo: string;
  asset: string;
  amount: bigint;
}>;

/** What a settlement claim writes before anything reaches the ledger. */
export type SettlementDraft = PaymentTerms &
  Readonly<{
    network: string;
    mode: SettlementMode;
    /** Our signature, known before submission because ed25519 is deterministic. */
    signature: string;
    /** Base64 of the fully signed wire transaction, kept so recovery can resubmit the same bytes. */
    wireTransaction: string | null;
    /** Block height after which the transaction can never land; null when nothing is submitted. */
    lastValidBlockHeight: bigint | null;
    /**
     * What this attempt charged to the fee budgets, so that recovery can give it back when the
     * transaction never lands; null or absent when nothing was charged (records, unit tests).
     */
    feeCharge?: FeeReservation | null;
    /**
     * The name of the API key that submitted this payment (FACILITATOR_API_KEYS_FILE), never the
     * key; null or absent without one. Status lookups and webhooks are scoped by it.
     */
    apiKey?: string | null;
    /**
     * Atomic and attestation: the PaymentReceipt account the payment was proven by, so feedback that
     * consumed it can be marked as settled here (docs/registry.md#settled-here). Written with the
     * claim and never read back into a record; null or absent for other modes.
     */
    receipt?: string | null;
  }>;

/**
 * What a settlement charged to the fee budget, as its record keeps it (so recovery can give it back):
 * the budget's payer (the source account's owner), the fee payer, the lamports and the window.
 */
export type FeeReservation = Readonly<{ payer: string; feePayer: string; lamports: bigint; window: number }>;

export type SettlementRecord = SettlementDraft &
  Readonly<{
    state: SettlementState;
    error: string | null;
    /** Incremented each time a failed record is claimed again. */
    attempts: number;
    createdAt: Date;
    updatedAt: Date;
    /** The slot the transaction landed in, when a confirmation reported it. */
    slot: bigint | null;
    /** When this attempt's send was acknowledged by the ledger (recorded with the next write). */
    submittedAt: Date | null;
    /** When a settle answered `settlement_pending` (past SETTLE_CONFIRM_DEADLINE_MS). */
    pendingAt: Date | null;
    /** When the record became final (settled or failed); null for records from before it was kept. */
    finishedAt: Date | null;
    /** When the ledger corrected a `failed` record to settled. */
    correctedAt: Date | null;
    /** When the settled payment was first presented again (an idempotent replay or a refused duplicate). */
    replayedAt: Date | null;
    replays: number;
  }>;

/** What a finish may add: the slot the ledger reported and when the send was acknowledged. */
export type FinishDetail = Readonly<{ slot?: bigint | null; submittedAt?: Date | null }>;

export type ClaimResult =
  | Readonly<{ outcome: "claimed"; record: SettlementRecord }>
  /** Another claim holds the key or the paymentId; `record` is that claim as stored now. */
  | Readonly<{ outcome: "exists"; record: SettlementRecord }>;

/**
 * What one on-chain Delegation still allows the facilitator to spend. Our delegated transfers
 * use SPL delegate authority, so the program never counts them in the Delegation's
 * spent_total: the store counts them instead, per Delegation.
 */
export type SpendingBudget = Readonly<{
  /** The Delegation account's address. */
  delegation: string;
  /** max_spend_total - spent_total as the ledger has it; null when the Delegation has no total. */
  remaining: bigint | null;
  /** uses_remaining as the ledger has it; null when unlimited. */
  usesRemaining: bigint | null;
}>;

export type BudgetedClaimResult = ClaimResult | Readonly<{ outcome: "over-budget"; spent: bigint; uses: bigint }>;

/** A paymentId with its payer: paymentIds are scoped to their payer. */
export type PayerPaymentId = Readonly<{ payer: string; paymentId: string }>;

/**
 * Durable settlement records. `claim` is atomic: of any number of concurrent claims for
 * one key or paymentId, across processes sharing the database, exactly one gets `claimed`.
 * A record in state `failed` may be claimed again (a retry); that claim replaces its draft.
 *
 * Implementations may group concurrent calls into one statement (the SQL store does: one
 * multi-row statement per batch of claims, of finishes and of lookups); each call still gets
 * its own answer with the semantics below.
 *
 * Every method may throw a CodedError "STORE_UNAVAILABLE" (the PostgreSQL adapter's
 * StoreUnavailableError is one): the store could not be reached, refused the connection or lost
 * it mid-statement. A write that failed this way may or may not have committed; callers answer
 * accordingly and leave the rest to recovery.
 */
export type SettlementStore = Readonly<{
  claim(draft: SettlementDraft): Promise<ClaimResult>;
  /**
   * `claim`, refused when this record's amount plus every other non-failed record charged to the
   * same Delegation would exceed the budget. Check and claim are one atomic step per Delegation,
   * across processes, so concurrent payments cannot overspend it together.
   */
  claimWithinBudget(draft: SettlementDraft, budget: SpendingBudget): Promise<BudgetedClaimResult>;
  /**
   * Moves a pending (or legacy submitted) record with this signature to a final state. Returns
   * false, changing nothing, when the record is already final or holds another attempt: the
   * signature names the attempt, because a retry of a failed record replaces it, so a late write
   * about an earlier attempt (a slow reconciler, a stale request) can never touch the new one.
   */
  finish(
    key: string,
    signature: string,
    outcome: Readonly<{ state: "settled" } | { state: "failed"; error: string }>,
    detail?: FinishDetail,
  ): Promise<boolean>;
  /**
   * A settle answered `settlement_pending` for this open attempt: the record keeps when (and when
   * its send was acknowledged), and a `settlement.pending` event is written with it. False,
   * changing nothing, when the record is already final or holds another attempt.
   */
  markPending(key: string, signature: string, submittedAt: Date | null): Promise<boolean>;
  /** The settled payment with this transaction signature was presented again: counted for status lookups. */
  markReplayed(network: string, signature: string): Promise<void>;
  /** The latest record of `network` whose transaction signature is this one (GET /settlements/{transaction}). */
  findBySignature(network: string, signature: string): Promise<SettlementRecord | null>;
  /**
   * Records of `network` holding this paymentId, any payer (it is unique per payer), newest first,
   * at most `limit`; with `submittedWith`, only those submitted with that API key name (null: none).
   */
  findAllByPaymentId(network: string, paymentId: string, limit: number, submittedWith?: Readonly<{ apiKey: string | null }>): Promise<readonly SettlementRecord[]>;
  get(key: string): Promise<SettlementRecord | null>;
  /**
   * What a claim of this key and paymentId would meet: the record holding the key, else the one
   * holding the paymentId, else null. One lookup, for the idempotency check before signing.
   */
  findExisting(key: string, paymentId: PayerPaymentId | null): Promise<SettlementRecord | null>;
  /** paymentIds are scoped to their payer: two payers may use the same id. */
  findByPaymentId(payer: string, paymentId: string): Promise<SettlementRecord | null>;
  /**
   * The ledger confirmed this attempt (this signature) without error: its record becomes `settled`
   * from whatever state it is in, `failed` included, because the ledger is the truth. Returns the
   * state it left (`failed` means a final record was corrected), or null, changing nothing, when
   * it is already settled or holds another attempt. Only a ledger confirmation may call this.
   */
  settleLanded(key: string, signature: string, slot?: bigint | null): Promise<SettlementState | null>;
  /** Records of `network` still open (pending, or legacy submitted), oldest first, for recovery. */
  listUnresolved(network: string, limit: number): Promise<readonly SettlementRecord[]>;
  /**
   * Records of `network` that turned `failed` within the last `withinSeconds`, most recent first:
   * the ones recovery asks the ledger about again, in case the transaction landed after all.
   */
  listRecentlyFailed(network: string, withinSeconds: number, limit: number): Promise<readonly SettlementRecord[]>;
  /** How many records of `network` are open, by state, and when the oldest of them was claimed. */
  backlog(network: string): Promise<SettlementBacklog>;
}>;

/** The open records of one network, for the backlog metrics. */
export type SettlementBacklog = Readonly<{
  /** Open records by state (`submitted` only in records written by earlier releases). */
  open: Readonly<Record<"pending" | "submitted", number>>;
  /** When the oldest open record was claimed; null when none is open. */
  oldestCreatedAt: Date | null;
}>;

/**
 * The store could not be reached, refused the connection or lost it mid-statement: an adapter
 * throws a CodedError with this code. A write that failed this way may or may not have committed;
 * callers answer accordingly and leave the rest to recovery.
 */
export type StoreFailureCode = "STORE_UNAVAILABLE";
