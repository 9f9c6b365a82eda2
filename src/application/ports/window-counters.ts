/**
 * Counters per scope and fixed time window, shared by every replica (PostgreSQL, or Redis when
 * REDIS_URL is set). The fee budget is built on them.
 */
export type WindowCounters = Readonly<{
  /**
   * Adds `amount` to the counter of each scope in `window`, all at once, and returns each
   * counter's new total in the order of `scopes`.
   */
  add(window: number, scopes: readonly string[], amount: bigint): Promise<readonly bigint[]>;
  /** Takes back an earlier `add` (a reservation that was refused or spent nothing). */
  subtract(window: number, scopes: readonly string[], amount: bigint): Promise<void>;
}>;

/**
 * The counters did not answer in time or at all (Redis, or the database without REDIS_URL): an
 * adapter throws a CodedError with this code. Limits built on them fail closed: a rate-limited
 * route answers 503, the fee budget charges nothing and signs nothing (FEE_BUDGET_UNAVAILABLE).
 */
export type CountersFailureCode = "COUNTERS_UNAVAILABLE";
