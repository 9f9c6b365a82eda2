import type { MintExtension, MintView } from "./mint-view.ts";

/** One of a mint's two transfer-fee schedules (Token-2022's TransferFee). */
export type TransferFeeSchedule = Readonly<{ epoch: bigint; maximumFee: bigint; transferFeeBasisPoints: number }>;

/** The mint's TransferFeeConfig schedules: the older applies before `newer.epoch`, the newer from it. */
export type TransferFeeTerms = Readonly<{ older: TransferFeeSchedule; newer: TransferFeeSchedule }>;

export function transferFeeTermsOf(mint: MintView): TransferFeeTerms | null {
  const config = mint.extensions.find((e): e is Extract<MintExtension, { __kind: "TransferFeeConfig" }> => e.__kind === "TransferFeeConfig");
  return config ? Object.freeze({ older: config.olderTransferFee, newer: config.newerTransferFee }) : null;
}

/** Token-2022's `calculate_fee`: ceil(amount x bps / 10,000), at most `maximumFee`. */
export function feeUnder(schedule: TransferFeeSchedule, amount: bigint): bigint {
  if (schedule.transferFeeBasisPoints === 0 || amount === 0n) return 0n;
  const raw = (amount * BigInt(schedule.transferFeeBasisPoints) + 9_999n) / 10_000n;
  return raw < schedule.maximumFee ? raw : schedule.maximumFee;
}

/**
 * The fee the mint withholds from a transfer of `amount`, when both schedules agree on it; null
 * when they differ. Which schedule applies depends on the epoch the transfer lands in, and a
 * payment verified now may land after the switch, so only a fee both schedules give is certain.
 */
export function certainFee(terms: TransferFeeTerms | null, amount: bigint): bigint | null {
  if (terms === null) return 0n;
  const older = feeUnder(terms.older, amount);
  return older === feeUnder(terms.newer, amount) ? older : null;
}
