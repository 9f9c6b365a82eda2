import type { Clock } from "../ports/clock.ts";
import type { WindowCounters } from "../ports/window-counters.ts";

/** Lamports our fee payers may spend per payer and per fee payer in each window. */
export type FeeBudgetLimits = Readonly<{
  perPayerLamports: bigint;
  perFeePayerLamports: bigint;
  windowSeconds: number;
}>;

/** What one settlement will cost which fee payer, on behalf of which payer. */
export type FeeCharge = Readonly<{ payer: string; feePayer: string; lamports: bigint }>;

export type FeeReservation = FeeCharge & Readonly<{ window: number }>;

export type FeeBudgetVerdict =
  | Readonly<{ ok: true; reservation: FeeReservation }>
  | Readonly<{ ok: false; message: string }>;

export type FeeBudget = Readonly<{
  /** Charges the fee before anything is signed; refused when either budget would be exceeded. */
  reserve(charge: FeeCharge): Promise<FeeBudgetVerdict>;
  /** Gives a reservation back: the transaction never landed, so the fee was never paid. */
  release(reservation: FeeReservation): Promise<void>;
}>;

/**
 * SECURITY: the per-transaction caps bound one settlement; this bounds how many an hour. Counters
 * are added first and compared after, so concurrent reservations on any number of replicas can
 * never pass together over a limit: the one that crosses it sees the crossing total and takes
 * its charge back. A refused burst may briefly refuse an honest payment near the limit; the
 * budget fails closed, never open.
 *
 * Windows are fixed (window = floor(now / windowSeconds)): simple to share and to expire, at the
 * price that a payer may spend up to twice the limit across a window boundary.
 */
export function createFeeBudget(counters: WindowCounters, limits: FeeBudgetLimits, clock: Clock): FeeBudget {
  const windowMs = limits.windowSeconds * 1000;
  return Object.freeze({
    async reserve(charge: FeeCharge): Promise<FeeBudgetVerdict> {
      const window = Math.floor(clock.now() / windowMs);
      const scopes = [payerScope(charge.payer), feePayerScope(charge.feePayer)];
      const [payerTotal = 0n, feePayerTotal = 0n] = await counters.add(window, scopes, charge.lamports);
      const overPayer = payerTotal > limits.perPayerLamports;
      if (!overPayer && feePayerTotal <= limits.perFeePayerLamports) {
        return { ok: true, reservation: Object.freeze({ ...charge, window }) };
      }
      await counters.subtract(window, scopes, charge.lamports);
      const message = overPayer
        ? `the fee budget for payer ${charge.payer} is spent for this window (${limits.perPayerLamports} lamports per ${limits.windowSeconds} s); retry later`
        : `the facilitator's fee budget for fee payer ${charge.feePayer} is spent for this window; retry later`;
      return { ok: false, message };
    },
    release: (reservation: FeeReservation) =>
      counters.subtract(reservation.window, [payerScope(reservation.payer), feePayerScope(reservation.feePayer)], reservation.lamports),
  });
}

const payerScope = (payer: string) => `payer:${payer}`;
const feePayerScope = (feePayer: string) => `fee-payer:${feePayer}`;
