import type { Address, Signature } from "@solana/kit";

/** A feedback entry's detail URI and where it was read: the give_feedback transaction that created the entry. */
export type FeedbackDetailUri = Readonly<{
  address: Address;
  detailUri: string;
  signature: Signature;
  fetchedAtMs: number;
}>;

/**
 * Durable detail URIs of feedback entries, shared by replicas. A URI never changes once the entry
 * exists, so rows are only ever added.
 */
export type FeedbackDetailUriStore = Readonly<{
  /** The stored URIs among `addresses`, by address (addresses without one are absent). */
  find(addresses: readonly Address[]): Promise<ReadonlyMap<Address, string>>;
  /** Stores a URI; when the address already has one (another replica was first), nothing changes. */
  save(record: FeedbackDetailUri): Promise<void>;
}>;
