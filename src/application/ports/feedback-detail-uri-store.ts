import type { Address, Signature } from "@solana/kit";

/** A feedback entry's detail URI and where it was read: the give_feedback transaction that created the entry. */
export type FeedbackDetailUri = Readonly<{
  address: Address;
  detailUri: string;
  signature: Signature;
  fetchedAtMs: number;
  /** The PaymentReceipt the give_feedback consumed as payment proof; null when it named none. */
  paymentReceipt: Address | null;
}>;

/** What the store holds of one entry. */
export type StoredFeedbackDetail = Readonly<{
  detailUri: string;
  /** The give_feedback transaction the URI was read from. */
  signature: Signature;
  /** undefined: the row was saved before receipts were read (migration 13), so it is not known yet. */
  paymentReceipt: Address | null | undefined;
}>;

/**
 * Durable detail URIs (and payment receipts) of feedback entries, shared by replicas. Neither
 * changes once the entry exists, so rows are only ever added (or completed).
 */
export type FeedbackDetailUriStore = Readonly<{
  /** The stored details among `addresses`, by address (addresses without one are absent). */
  find(addresses: readonly Address[]): Promise<ReadonlyMap<Address, StoredFeedbackDetail>>;
  /**
   * Stores a URI and receipt; when the address already has a row (another replica was first) its URI
   * stays, and only a receipt not read yet (a row from before migration 13) is filled in.
   */
  save(record: FeedbackDetailUri): Promise<void>;
}>;
