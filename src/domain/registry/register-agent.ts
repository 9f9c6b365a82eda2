import { AccountRole, type Address, type Instruction, type ReadonlyUint8Array } from "@solana/kit";
import { anchorInstruction, type LayoutValue } from "./anchor-layout.ts";
import { bytes32, pubkey, string, vec } from "./borsh-codecs.ts";
import { SYSTEM_PROGRAM } from "@x84/solana-wire";

/** The instruction's arguments, in IDL order. */
const registerAgent = anchorInstruction("register_agent", {
  name: string, metadataUri: string,
  /** SHA-256 of the metadata document's bytes. */ metadataHash: bytes32,
  feedbackAuthority: pubkey,
  /** SHA-256 of each tag name. */ tags: vec(bytes32),
});
export type RegisterAgentArgs = LayoutValue<typeof registerAgent>;
/** Discriminator, then the Borsh arguments. */
export const { discriminator: REGISTER_AGENT_DISCRIMINATOR, encode: encodeRegisterAgentData } = registerAgent;

/** Programs register_agent names by fixed address in the IDL. */
export const MPL_CORE_PROGRAM = "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d" as Address;
export { SYSTEM_PROGRAM };

/** Limits from the spec (POST /agents/register) and the program; name and URI bytes are in registration-fields.ts. */
export const MAX_AGENT_TAGS = 5;
export const MAX_FREE_TAG_LENGTH = 32;

/** The inverse, for checking a built transaction; null when the bytes are not register_agent or run past its arguments. */
export function decodeRegisterAgentData(data: ReadonlyUint8Array): RegisterAgentArgs | null {
  const decoded = registerAgent.decode(data);
  return decoded.ok && decoded.size === data.length ? decoded.value : null;
}

/** The accounts of register_agent in IDL order, with their roles exactly as the IDL declares them (writable / signer flags). */
export const REGISTER_AGENT_ROLES = [
  { name: "config", role: AccountRole.READONLY },
  { name: "configAuthority", role: AccountRole.READONLY_SIGNER },
  { name: "agentIdentity", role: AccountRole.WRITABLE },
  { name: "owner", role: AccountRole.WRITABLE_SIGNER },
  { name: "asset", role: AccountRole.WRITABLE_SIGNER },
  { name: "collection", role: AccountRole.WRITABLE },
  { name: "feeTreasury", role: AccountRole.WRITABLE },
  { name: "mplCoreProgram", role: AccountRole.READONLY },
  { name: "systemProgram", role: AccountRole.READONLY },
] as const;

/** The caller's accounts: every one but the two programs, which are fixed. */
export type RegisterAgentAccounts = Readonly<Record<Exclude<(typeof REGISTER_AGENT_ROLES)[number]["name"], "mplCoreProgram" | "systemProgram">, Address>>;

export function registerAgentInstruction(programId: Address, accounts: RegisterAgentAccounts, args: RegisterAgentArgs): Instruction {
  const all = { ...accounts, mplCoreProgram: MPL_CORE_PROGRAM, systemProgram: SYSTEM_PROGRAM };
  return {
    programAddress: programId,
    accounts: REGISTER_AGENT_ROLES.map(({ name, role }) => ({ address: all[name], role })),
    data: encodeRegisterAgentData(args),
  };
}
