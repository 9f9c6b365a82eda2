import type { Address, Transaction } from "@solana/kit";
import type { PaymentRequest } from "../../domain/payment/payment-request.ts";
import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import type { PaymentTerms, SpendingBudget } from "../ports/settlement-store.ts";
import type { LedgerPreflight } from "./ledger-preflight.ts";
import type { PaymentRefusal } from "./payment-refusal.ts";

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
    /** The PaymentReceipt account that proved the payment (kept with the record: feedback `settledHere`). */
    receipt: Address | null;
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

/** /settle's verification: every check settlement needs, and the candidate it leads to. */
export type VerifyForSettlement = (request: PaymentRequest) => Promise<Readonly<{ ok: true; candidate: SettlementCandidate }> | PaymentRefusal>;
