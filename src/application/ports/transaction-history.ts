import type { Address, Signature } from "@solana/kit";
import type { LandedTransaction } from "../../domain/registry/give-feedback.ts";

export type { LandedInstruction, LandedTransaction } from "../../domain/registry/give-feedback.ts";

/** One entry of an address's transaction history; `err` rendered as for the Ledger's statuses, null when it succeeded. */
export type AddressSignature = Readonly<{
  signature: Signature;
  slot: bigint;
  err: string | null;
}>;

/** The most getSignaturesForAddress answers in one call (the Solana RPC's own cap). */
export const MAX_SIGNATURES_PER_PAGE = 1000;

/**
 * Read access to landed transactions by address, at `confirmed`, from a JSON-RPC node (the
 * embedded ledger's server answers it too, from its own history, when it runs as its own process:
 * `npm run ledger`). In process the service does not ask: registry accounts there are written by
 * cheat codes, with no transaction behind them. Both methods throw `LedgerError` when the node is
 * unreachable.
 */
export type TransactionHistory = Readonly<{
  /**
   * Signatures of transactions that name `address`, newest first: at most `limit`
   * (1..{@link MAX_SIGNATURES_PER_PAGE}), all older than `before` when given (paging).
   */
  getSignaturesForAddress(address: Address, options?: Readonly<{ before?: Signature; limit?: number }>): Promise<readonly AddressSignature[]>;
  /** The transaction with every top-level and inner instruction; null when the node does not have it. */
  getTransaction(signature: Signature): Promise<LandedTransaction | null>;
}>;
