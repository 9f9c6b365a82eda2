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

/**
 * PROTOCOL_FEE_MISMATCH for a payment in two transfers that no split covers: none is configured,
 * or the requirements name another treasury or bps than the configured one (the x84 client then
 * pays a fee nobody agreed to, its built-in 300 bps to its built-in treasury when `extra` is
 * silent). The message says what this facilitator expects; the configured split is no secret
 * (/supported declares it).
 */
export function refuseUnagreedSplit(requirements: PaymentRequirements, configured: ProtocolFeeSplit | null): Rejection {
  if (configured === null) {
    return reject(
      "PROTOCOL_FEE_MISMATCH",
      `the transaction splits the payment into 2 TransferChecked (a protocol fee?), but this facilitator takes no protocol fee: expected exactly 1 TransferChecked of ${requirements.amount} to payTo`,
    );
  }
  const named = `extra.treasury ${shown(requirements.extra["treasury"])} and extra.protocolFeeBps ${shown(requirements.extra["protocolFeeBps"])}`;
  return reject(
    "PROTOCOL_FEE_MISMATCH",
    `the transaction splits the payment into 2 TransferChecked, but the requirements name ${named}: this facilitator's protocol fee is treasury ${configured.treasury} at ${configured.bps} bps, so expected extra.treasury "${configured.treasury}" and extra.protocolFeeBps ${configured.bps} (or 1 TransferChecked of ${requirements.amount} to payTo)`,
  );
}

/** A client's `extra` value in a message: short strings and numbers as given, anything else by kind. */
function shown(value: unknown): string {
  if (value === undefined) return "absent";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value.length <= 64 ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, 64))}…`;
  return `of type ${value === null ? "null" : typeof value}`;
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
  // A wrong bps or a wrong treasury is a disagreement about the protocol fee, answered as such.
  const expected = feeOf(requirements.amount, split);
  if (fee.amount !== expected) {
    return reject("PROTOCOL_FEE_MISMATCH", `expected a protocol fee of ${expected} (${split.bps} bps of ${requirements.amount}) in the second TransferChecked, received ${fee.amount}`);
  }
  const treasuryAccount = await atas.derive(split.treasury, payment.mint, payment.program);
  return fee.destination === treasuryAccount
    ? null
    : reject("PROTOCOL_FEE_MISMATCH", `expected the protocol fee to go to treasury ${split.treasury}'s token account ${treasuryAccount}, it goes to ${fee.destination}`);
}
