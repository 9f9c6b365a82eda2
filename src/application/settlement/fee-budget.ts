import type { Clock } from "../ports/clock.ts";
import type { FeeReservation } from "../ports/settlement-store.ts";
import type { WindowCounters } from "../ports/window-counters.ts";

/** Lamports our fee payers may spend per payer and per fee payer in each window. */
export type FeeBudgetLimits = Readonly<{
  perPayerLamports: bigint;
  perFeePayerLamports: bigint;
  windowSeconds: number;
  /**
   * FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT: the share of each fee payer's budget that only
   * callers with an API key may spend (0 to 100; default 0).
   */
  reservedForApiKeysPercent?: number;
}>;

/** Who asked for a settlement: a caller that presented a valid API key, or anyone. */
export type CallerKind = "api-key" | "anonymous";

/**
 * What one settlement will cost which fee payer, on behalf of which payer. `payer` is the source
 * token account's owner, so the delegates of one owner share the owner's budget.
 */
export type FeeCharge = Readonly<{ payer: string; feePayer: string; lamports: bigint; caller?: CallerKind }>;

export type { FeeReservation };

export type FeeBudgetVerdict =
  | Readonly<{ ok: true; reservation: FeeReservation }>
  | Readonly<{ ok: false; message: string }>;

export type FeeBudget = Readonly<{
  /** Charges the fee before anything is signed; refused when either budget would be exceeded. */
  reserve(charge: FeeCharge): Promise<FeeBudgetVerdict>;
  /** Gives a reservation back: the transaction never landed, so the fee was never paid. */
  release(reservation: FeeReservation): Promise<void>;
  /**
   * Charges the payer's budget alone for a settlement the ledger would have refused: nothing was
   * signed and the fee payer spent nothing, but such attempts must not be free and unbounded.
   */
  chargeRefusedAttempt(payer: string, lamports: bigint): Promise<void>;
}>;

/**
 * SECURITY: the per-transaction caps bound one settlement; this bounds how many an hour. Counters
 * are added first and compared after, so concurrent reservations on any number of replicas can
 * never pass together over a limit: the one that crosses it sees the crossing total and takes
 * its charge back. A refused burst may briefly refuse an honest payment near the limit; the
 * budget fails closed, never open.
 *
 * SECURITY: anonymous callers may spend only the unreserved share of a fee payer's budget, so
 * anonymous traffic, however large, always leaves the reserved share to API-key callers.
 *
 * Windows are fixed (window = floor(now / windowSeconds)): simple to share and to expire, at the
 * price that a payer may spend up to twice the limit across a window boundary.
 */
export function createFeeBudget(counters: WindowCounters, limits: FeeBudgetLimits, clock: Clock): FeeBudget {
  const windowMs = limits.windowSeconds * 1000;
  const currentWindow = () => Math.floor(clock.now() / windowMs);
  const reservedPercent = BigInt(Math.round(limits.reservedForApiKeysPercent ?? 0));
  const anonymousFeePayerLamports = (limits.perFeePayerLamports * (100n - reservedPercent)) / 100n;
  return Object.freeze({
    async reserve(charge: FeeCharge): Promise<FeeBudgetVerdict> {
      const window = currentWindow();
      const scopes = [payerScope(charge.payer), feePayerScope(charge.feePayer)];
      const [payerTotal = 0n, feePayerTotal = 0n] = await counters.add(window, scopes, charge.lamports);
      const feePayerLimit = charge.caller === "api-key" ? limits.perFeePayerLamports : anonymousFeePayerLamports;
      const overPayer = payerTotal > limits.perPayerLamports;
      if (!overPayer && feePayerTotal <= feePayerLimit) {
        return { ok: true, reservation: Object.freeze({ payer: charge.payer, feePayer: charge.feePayer, lamports: charge.lamports, window }) };
      }
      await counters.subtract(window, scopes, charge.lamports);
      const message = overPayer
        ? `the fee budget for payer ${charge.payer} is spent for this window (${limits.perPayerLamports} lamports per ${limits.windowSeconds} s); retry later`
        : feePayerLimit < limits.perFeePayerLamports
          ? `the facilitator's fee budget for fee payer ${charge.feePayer} open to callers without an API key is spent for this window; retry later or use an API key`
          : `the facilitator's fee budget for fee payer ${charge.feePayer} is spent for this window; retry later`;
      return { ok: false, message };
    },
    async release(reservation: FeeReservation) {
      // A window that has ended is no longer consulted: giving back there changes nothing.
      if (reservation.window !== currentWindow()) return;
      await counters.subtract(reservation.window, [payerScope(reservation.payer), feePayerScope(reservation.feePayer)], reservation.lamports);
    },
    async chargeRefusedAttempt(payer: string, lamports: bigint) {
      await counters.add(currentWindow(), [payerScope(payer)], lamports);
    },
  });
}

const payerScope = (payer: string) => `payer:${payer}`;
const feePayerScope = (feePayer: string) => `fee-payer:${feePayer}`;
