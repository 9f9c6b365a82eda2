import { type Address, type ReadonlyUint8Array, getCompiledTransactionMessageDecoder } from "@solana/kit";
import { REGISTER_AGENT_ROLES, decodeRegisterAgentData } from "./register-agent.ts";

export type RegistrationSigners = Readonly<{ programId: Address; owner: Address; configAuthority: Address; asset: Address }>;

/**
 * SECURITY: the config authority is a KMS or HSM key that the program trusts; it signs only a
 * transaction that is exactly one register_agent, paid by the owner. Checked on the compiled
 * message bytes our key will sign, not on the builder's inputs, so no bug upstream can make it
 * pay fees, sign a transfer, or authorise anything else. Returns why it refuses, or null.
 */
export function checkRegistrationMessage(messageBytes: ReadonlyUint8Array, expected: RegistrationSigners): string | null {
  if (expected.owner === expected.configAuthority) return "the owner cannot be the config authority";
  let decoded;
  try {
    decoded = getCompiledTransactionMessageDecoder().decode(messageBytes);
  } catch {
    return "the message does not decode";
  }
  if (decoded.version !== "legacy" && decoded.version !== 0) return "the message version is not legacy or 0";
  const message = decoded;
  const accounts = message.staticAccounts;
  if ("addressTableLookups" in message && (message.addressTableLookups?.length ?? 0) > 0) return "the message uses lookup tables";
  if (accounts[0] !== expected.owner) return "the fee payer is not the owner";
  const signers = accounts.slice(0, message.header.numSignerAccounts);
  const wanted = [expected.owner, expected.configAuthority, expected.asset];
  if (signers.length !== wanted.length || !wanted.every((address) => signers.includes(address))) {
    return "the signers are not exactly the owner, the config authority and the asset";
  }
  if (message.instructions.length !== 1) return "the message holds more than register_agent";
  const [instruction] = message.instructions;
  if (!instruction || accounts[instruction.programAddressIndex] !== expected.programId) return "the instruction is not the registry program's";
  if (!instruction.data || decodeRegisterAgentData(instruction.data) === null) return "the instruction is not register_agent";
  const indices = instruction.accountIndices ?? [];
  if (indices.length !== REGISTER_AGENT_ROLES.length) return "register_agent has the wrong number of accounts";
  const authorityAt = indices.flatMap((index: number, position: number) => (accounts[index] === expected.configAuthority ? [position] : []));
  if (authorityAt.length !== 1 || authorityAt[0] !== 1) return "the config authority is used as another account than config_authority";
  if (accounts[indices[3] ?? -1] !== expected.owner || accounts[indices[4] ?? -1] !== expected.asset) return "owner or asset is misplaced";
  return null;
}
