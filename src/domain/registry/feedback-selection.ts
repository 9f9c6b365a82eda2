import type { Address } from "@solana/kit";
import type { FeedbackEntry } from "./feedback-entry.ts";

/**
 * One feedback entry: its account and, once read, the `detail_uri` argument of the `give_feedback`
 * instruction that created it (the account does not store it; undefined until it is known), and
 * the payment receipt the same instruction named.
 */
export type FeedbackRecord = Readonly<{
  address: Address;
  entry: FeedbackEntry;
  detailUri?: string;
  /** The PaymentReceipt that instruction consumed (null: none); undefined until it is known. */
  paymentReceipt?: Address | null;
}>;

export type FeedbackFilter = Readonly<{
  reviewer?: string;
  /** Matches `has_payment_proof`: the program counts such feedback as "verified" reputation. */
  verified?: boolean;
  /** Revoked entries are hidden unless this is true. */
  includeRevoked?: boolean;
}>;

/** Newest first (`createdAt` desc, then address desc so equal timestamps keep a stable order). */
export function selectFeedback(records: readonly FeedbackRecord[], filter: FeedbackFilter): FeedbackRecord[] {
  return records
    .filter(
      ({ entry }) =>
        (filter.includeRevoked === true || !entry.revoked) &&
        (filter.reviewer === undefined || entry.reviewer === filter.reviewer) &&
        (filter.verified === undefined || entry.hasPaymentProof === filter.verified),
    )
    .sort(newestFirst((r) => r.entry.createdAt));
}

/** Comparator: larger timestamp first, ties broken by address descending. */
export function newestFirst<T extends Readonly<{ address: string }>>(timeOf: (item: T) => bigint) {
  return (a: T, b: T): number => {
    const ta = timeOf(a);
    const tb = timeOf(b);
    if (ta !== tb) return ta > tb ? -1 : 1;
    if (a.address === b.address) return 0;
    return a.address > b.address ? -1 : 1;
  };
}
