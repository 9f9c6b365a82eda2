import type { SettlementRecord } from "./settlement-store.ts";

/** Where a page of {@link SettlementHistory} ends: the next page starts after it. */
export type HistoryCursor = Readonly<{ seq: bigint }>;

export type HistoryPage = Readonly<{ records: readonly SettlementRecord[]; next: HistoryCursor | null }>;

/**
 * Settlement records read back by time, for audits: every record of `network` claimed or written
 * (finished, corrected, retaken) at or after `since`, in insertion order, a page at a time. A
 * read model beside the settlement store, which the payment path never needs.
 *
 * May throw a CodedError "STORE_UNAVAILABLE", as the settlement store does.
 */
export type SettlementHistory = Readonly<{
  writtenSince(network: string, since: Date, after: HistoryCursor | null, limit: number): Promise<HistoryPage>;
}>;
