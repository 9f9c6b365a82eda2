import { AccountRole, type Address, type ReadonlyUint8Array, getCompiledTransactionMessageDecoder } from "@solana/kit";
import { SOLANA_PACKET_BYTES } from "../verification/verification-policy.ts";
import { MPL_CORE_PROGRAM, REGISTER_AGENT_ROLES, type RegisterAgentAccounts, SYSTEM_PROGRAM, decodeRegisterAgentData } from "./register-agent.ts";

/** The registry program and every caller-chosen account of the one register_agent our key will sign. */
export type ExpectedRegistration = Readonly<{ programId: Address }> & RegisterAgentAccounts;

type CompiledMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;

/**
 * SECURITY: the config authority is a KMS or HSM key that the program trusts; it signs only a
 * transaction that is exactly one register_agent, paid by the owner, that can land. Checked on the
 * compiled message bytes our key will sign, not on the builder's inputs, so no bug upstream can make
 * it pay fees, sign a transfer, authorise anything else or sign a transaction over the packet
 * limit. Every account slot must hold the expected address with the writable and signer flags the
 * IDL declares (register_agent in the registry IDL), no more and no less. Returns why it refuses, or null.
 */
export function checkRegistrationMessage(messageBytes: ReadonlyUint8Array, expected: ExpectedRegistration): string | null {
  if (expected.owner === expected.configAuthority) return "the owner cannot be the config authority";
  let message: CompiledMessage;
  try {
    message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  } catch {
    return "the message does not decode";
  }
  if (message.version !== "legacy" && message.version !== 0) return "the message version is not legacy or 0";
  const accounts = message.staticAccounts;
  if ("addressTableLookups" in message && (message.addressTableLookups?.length ?? 0) > 0) return "the message uses lookup tables";
  const size = wireSize(message.header.numSignerAccounts, messageBytes.length);
  if (size > SOLANA_PACKET_BYTES) return `the signed transaction would be ${size} bytes, over the ${SOLANA_PACKET_BYTES}-byte packet limit`;
  if (accounts[0] !== expected.owner) return "the fee payer is not the owner";
  const signers = accounts.slice(0, message.header.numSignerAccounts);
  const wanted = [expected.owner, expected.configAuthority, expected.asset];
  if (signers.length !== wanted.length || !wanted.every((address) => signers.includes(address))) {
    return "the signers are not exactly the owner, the config authority and the asset";
  }
  if (message.instructions.length !== 1) return "the message holds more than register_agent";
  const [instruction] = message.instructions;
  if (!instruction || accounts[instruction.programAddressIndex] !== expected.programId) return "the instruction is not the registry program's";
  if (roleAt(message, instruction.programAddressIndex) !== AccountRole.READONLY) return "the registry program is not a read-only account";
  if (!instruction.data || decodeRegisterAgentData(instruction.data) === null) return "the instruction is not register_agent";
  const indices = instruction.accountIndices ?? [];
  if (indices.length !== REGISTER_AGENT_ROLES.length) return "register_agent has the wrong number of accounts";
  const authorityAt = indices.flatMap((index: number, position: number) => (accounts[index] === expected.configAuthority ? [position] : []));
  if (authorityAt.length !== 1 || authorityAt[0] !== 1) return "the config authority is used as another account than config_authority";
  const slot = slotProblem(message, indices, expected);
  if (slot !== null) return slot;
  if (new Set([...indices, instruction.programAddressIndex]).size !== accounts.length) return "the message lists accounts register_agent does not use";
  return null;
}

/** Each of the nine slots: the expected address, and exactly the IDL's writable and signer flags. */
function slotProblem(message: CompiledMessage, indices: readonly number[], expected: ExpectedRegistration): string | null {
  const addresses: Readonly<Record<(typeof REGISTER_AGENT_ROLES)[number]["name"], Address>> = {
    ...expected,
    mplCoreProgram: MPL_CORE_PROGRAM,
    systemProgram: SYSTEM_PROGRAM,
  };
  for (const [position, { name, role }] of REGISTER_AGENT_ROLES.entries()) {
    const index = indices[position] ?? -1;
    if (message.staticAccounts[index] !== addresses[name]) return `account ${position} (${name}) is not the expected address`;
    if (roleAt(message, index) !== role) return `account ${position} (${name}) does not have the writable and signer flags the IDL declares`;
  }
  return null;
}

/** An account's role from the message header's layout: signers first (writable, then read-only), then the rest. */
function roleAt(message: CompiledMessage, index: number): AccountRole {
  const { numSignerAccounts: signers, numReadonlySignerAccounts: readonlySigners, numReadonlyNonSignerAccounts: readonlyOthers } = message.header;
  if (index < signers) return index < signers - readonlySigners ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  return index < message.staticAccounts.length - readonlyOthers ? AccountRole.WRITABLE : AccountRole.READONLY;
}

/** Wire bytes once signed: a compact-u16 signature count, 64 bytes per signature, the message. */
function wireSize(signatureCount: number, messageLength: number): number {
  const countBytes = signatureCount < 0x80 ? 1 : signatureCount < 0x4000 ? 2 : 3;
  return countBytes + 64 * signatureCount + messageLength;
}
