import { getAddressEncoder, getProgramDerivedAddress, getU64Encoder, type Address, type ProgramDerivedAddress, type ReadonlyUint8Array } from "@solana/kit";

export { findAgentPda } from "../registry/pdas.ts";

const addressEncoder = getAddressEncoder();

/** `PaymentReceipt`: seeds `["receipt", payment_id]` (verify_and_settle's `payment_receipt`). */
export async function findReceiptPda(programId: Address, paymentId: ReadonlyUint8Array): Promise<ProgramDerivedAddress> {
  if (paymentId.length !== 32) throw new RangeError(`paymentId must be 32 bytes, got ${paymentId.length}`);
  return getProgramDerivedAddress({ programAddress: programId, seeds: ["receipt", paymentId] });
}

/**
 * `Delegation`: seeds `["delegation", delegator, delegate, delegation_id as u64 LE]`
 * (create_delegation takes the id from the agent's `delegation_count`; revoke_delegation
 * re-derives it from the account's own fields, as this does).
 */
export function findDelegationPda(
  programId: Address,
  delegator: Address,
  delegate: Address,
  delegationId: bigint,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ["delegation", addressEncoder.encode(delegator), addressEncoder.encode(delegate), getU64Encoder().encode(delegationId)],
  });
}
