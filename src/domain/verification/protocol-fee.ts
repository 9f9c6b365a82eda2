import type { Address } from "@solana/kit";
import type { AtaDeriver } from "../payment/associated-token-account.ts";
import type { PaymentRequirements } from "../payment/payment-request.ts";
import type { TransferChecked } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";

/** The operator's opt-in protocol-fee split (PROTOCOL_FEE_TREASURY, PROTOCOL_FEE_BPS). */
export type ProtocolFeeSplit = Readonly<{ treasury: Address; bps: number }>;

/**
 * The split that applies to this payment: the configured one, and only when the requirements
 * name that same treasury and bps in `extra` (the x84 client reads both from there). Anything else
 * is a standard one-transfer payment.
 */
export function splitFor(requirements: PaymentRequirements, configured: ProtocolFeeSplit | null): ProtocolFeeSplit | null {
  if (configured === null) return null;
  const treasury = requirements.extra["treasury"];
  const bps = requirements.extra["protocolFeeBps"];
  const bpsNumber = typeof bps === "string" && /^[0-9]{1,4}$/.test(bps) ? Number(bps) : bps;
  return treasury === configured.treasury && bpsNumber === configured.bps ? configured : null;
}

/** The x84 client's arithmetic: fee = floor(amount × bps / 10,000); the payee gets the rest. */
export function feeOf(amount: bigint, split: ProtocolFeeSplit): bigint {
  return (amount * BigInt(split.bps)) / 10_000n;
}

/**
 * SECURITY: with a split, the second transfer is the protocol fee and nothing else: the same
 * source, authority, mint and decimals as the payment, exactly the fee, into the treasury's
 * associated token account. A fee sent to payTo, a bigger fee, or a second source is refused.
 */
export async function checkFeeTransfer(
  fee: TransferChecked,
  payment: TransferChecked,
  split: ProtocolFeeSplit,
  requirements: PaymentRequirements,
  atas: AtaDeriver,
): Promise<Rejection | null> {
  if (fee.source !== payment.source || fee.authority !== payment.authority) {
    return reject("UNEXPECTED_TOKEN_INSTRUCTION", "the protocol-fee transfer must come from the payment's source and authority");
  }
  if (fee.fee !== null || fee.program !== payment.program) {
    return reject("UNEXPECTED_TOKEN_INSTRUCTION", "the protocol-fee transfer must be a plain TransferChecked through the payment's token program");
  }
  if (fee.mint !== payment.mint || fee.decimals !== payment.decimals) return reject("MINT_MISMATCH", "the protocol-fee transfer must move the payment's mint");
  const expected = feeOf(requirements.amount, split);
  if (fee.amount !== expected) {
    return reject("AMOUNT_MISMATCH", `expected a protocol fee of ${expected} (${split.bps} bps of ${requirements.amount}), received ${fee.amount}`);
  }
  const treasuryAccount = await atas.derive(split.treasury, payment.mint, payment.program);
  return fee.destination === treasuryAccount
    ? null
    : reject("RECIPIENT_MISMATCH", `the protocol fee goes to ${fee.destination}, not the treasury's token account ${treasuryAccount}`);
}
