import type { Address, Signature } from "@solana/kit";
import type { ModeName } from "../../../domain/modes/mode-extensions.ts";
import type { TokenDelegateGrant } from "../../../domain/modes/token-delegate-check.ts";
import type { PaymentRefusal } from "../payment-refusal.ts";

/** How a delegated payment will be settled: a TransferChecked signed by `delegateAuthority`. */
export type DelegatedSettlement = TokenDelegateGrant &
  Readonly<{
    /** "client": authorised by an on-chain Delegation; "server": by the payer's signed proof. */
    authorisation: "client" | "server";
    /** The Delegation account checked, when one was given. */
    delegationPda?: Address;
    /** Client-side: what that Delegation still allows (null: unlimited). */
    budget?: DelegationBudget;
  }>;

export type DelegationBudget = Readonly<{ remaining: bigint | null; usesRemaining: bigint | null }>;

export type ModeVerified = Readonly<{
  ok: true;
  mode: ModeName;
  /** Lowercase hex of the 32-byte paymentId. */
  paymentId: string;
  payer: Address;
  amount: bigint;
  /** Atomic and attestation: the on-chain transfer's signature. */
  txSignature?: Signature;
  /** Atomic and attestation: the receipt account that was checked. */
  receiptPda?: Address;
  /** Delegated: what settlement must sign and with which key. */
  delegated?: DelegatedSettlement;
}>;

export type ModeVerificationResult = ModeVerified | PaymentRefusal;
