import {
  AccountRole,
  type Address,
  type Instruction,
  type ReadonlyUint8Array,
  getAddressCodec,
  getArrayCodec,
  getStructCodec,
  getU32Codec,
} from "@solana/kit";
import { getBorshStringCodec, getBytes32Codec } from "./borsh-codecs.ts";

/** `register_agent` discriminator from the registry IDL (sha256("global:register_agent")[0..8]; checked by a test). */
export const REGISTER_AGENT_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([135, 157, 66, 195, 2, 113, 175, 30]);

/** Programs register_agent names by fixed address in the IDL. */
export const MPL_CORE_PROGRAM = "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d" as Address;
export const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;

/** Limits from the spec (POST /agents/register) and the program. */
export const MAX_AGENT_NAME_LENGTH = 64;
export const MAX_METADATA_URI_LENGTH = 200;
export const MAX_AGENT_TAGS = 5;
export const MAX_FREE_TAG_LENGTH = 32;

/** The instruction's arguments, in IDL order. */
export type RegisterAgentArgs = Readonly<{
  name: string;
  metadataUri: string;
  /** SHA-256 of the metadata document's bytes. */
  metadataHash: ReadonlyUint8Array;
  feedbackAuthority: Address;
  /** SHA-256 of each tag name. */
  tags: readonly ReadonlyUint8Array[];
}>;

/** The accounts of register_agent, in IDL order (the two program accounts are fixed). */
export type RegisterAgentAccounts = Readonly<{
  config: Address;
  configAuthority: Address;
  agentIdentity: Address;
  owner: Address;
  asset: Address;
  collection: Address;
  feeTreasury: Address;
}>;

function getRegisterAgentArgsCodec() {
  return getStructCodec([
    ["name", getBorshStringCodec()],
    ["metadataUri", getBorshStringCodec()],
    ["metadataHash", getBytes32Codec()],
    ["feedbackAuthority", getAddressCodec()],
    ["tags", getArrayCodec(getBytes32Codec(), { size: getU32Codec() })],
  ]);
}

/** Discriminator, then the Borsh arguments. */
export function encodeRegisterAgentData(args: RegisterAgentArgs): Uint8Array {
  const body = getRegisterAgentArgsCodec().encode({ ...args, tags: [...args.tags] });
  const data = new Uint8Array(REGISTER_AGENT_DISCRIMINATOR.length + body.length);
  data.set(REGISTER_AGENT_DISCRIMINATOR, 0);
  data.set(body, REGISTER_AGENT_DISCRIMINATOR.length);
  return data;
}

/** The inverse, for checking a built transaction; null when the bytes are not register_agent. */
export function decodeRegisterAgentData(data: ReadonlyUint8Array): RegisterAgentArgs | null {
  const prefix = REGISTER_AGENT_DISCRIMINATOR.length;
  if (data.length < prefix || REGISTER_AGENT_DISCRIMINATOR.some((byte, i) => data[i] !== byte)) return null;
  try {
    const [args, end] = getRegisterAgentArgsCodec().read(data, prefix);
    return end === data.length ? args : null;
  } catch {
    return null;
  }
}

/** Account roles exactly as the IDL declares them (writable / signer flags). */
export const REGISTER_AGENT_ROLES: readonly Readonly<{ name: keyof RegisterAgentAccounts | "mplCoreProgram" | "systemProgram"; role: AccountRole }>[] = [
  { name: "config", role: AccountRole.READONLY },
  { name: "configAuthority", role: AccountRole.READONLY_SIGNER },
  { name: "agentIdentity", role: AccountRole.WRITABLE },
  { name: "owner", role: AccountRole.WRITABLE_SIGNER },
  { name: "asset", role: AccountRole.WRITABLE_SIGNER },
  { name: "collection", role: AccountRole.WRITABLE },
  { name: "feeTreasury", role: AccountRole.WRITABLE },
  { name: "mplCoreProgram", role: AccountRole.READONLY },
  { name: "systemProgram", role: AccountRole.READONLY },
];

export function registerAgentInstruction(programId: Address, accounts: RegisterAgentAccounts, args: RegisterAgentArgs): Instruction {
  const all = { ...accounts, mplCoreProgram: MPL_CORE_PROGRAM, systemProgram: SYSTEM_PROGRAM };
  return {
    programAddress: programId,
    accounts: REGISTER_AGENT_ROLES.map(({ name, role }) => ({ address: all[name], role })),
    data: encodeRegisterAgentData(args),
  };
}
