/** Settled volume in one asset, in base units (a decimal string: u64 sums exceed 2^53). */
export type AssetVolume = Readonly<{ asset: string; amount: string }>;

/**
 * Settlements to one payee confirmed through this facilitator (its settlement store): evidence of
 * real payments, never the client's claim, and never global truth (other facilitators exist).
 */
export type PaymentsSummary = Readonly<{
  count: number;
  volume: readonly AssetVolume[];
  distinctPayers: number;
  last30Days: Readonly<{ count: number; volume: readonly AssetVolume[] }>;
  /** ISO 8601; null before the first settlement. */
  firstAt: string | null;
  lastAt: string | null;
}>;

/** What a confirmed receipt-mode settlement here recorded of its payment (the amount in base units, as text). */
export type SettledReceipt = Readonly<{ asset: string; amount: string }>;

/** Aggregates read from the settlement store (settled records of this facilitator's network only). */
export type PaymentStats = Readonly<{
  summaryFor(payTo: string): Promise<PaymentsSummary>;
  /** Settled payments per payee, for every payee with at least one. */
  countsByPayTo(): Promise<ReadonlyMap<string, number>>;
  /** Those of `receipts` (PaymentReceipt addresses) that a receipt-mode settlement here confirmed, with what each settled. */
  settledReceipts(receipts: readonly string[]): Promise<ReadonlyMap<string, readonly SettledReceipt[]>>;
}>;
