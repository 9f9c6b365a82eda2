import { type Address, isOffCurveAddress } from "@solana/kit";
import { MEMO_PROGRAMS, SYSTEM_PROGRAM } from "@x84/solana-wire";
import { MPL_CORE_PROGRAM, REGISTER_AGENT_ROLES, type RegisterAgentAccounts } from "./register-agent.ts";

/**
 * Programs a client may name as `ownerAddress` by mistake or on purpose. None can sign or pay a
 * fee; some (System, the registry program) would also merge into a program slot of the transaction.
 */
export const WELL_KNOWN_PROGRAMS: ReadonlyMap<Address, string> = new Map<Address, string>([
  [SYSTEM_PROGRAM, "System"],
  ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address, "SPL Token"],
  ["TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address, "Token-2022"],
  ["ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address, "Associated Token Account"],
  ["ComputeBudget111111111111111111111111111111" as Address, "Compute Budget"],
  [MPL_CORE_PROGRAM, "Metaplex Core"],
  ["BPFLoader1111111111111111111111111111111111" as Address, "BPF Loader"],
  ["BPFLoader2111111111111111111111111111111111" as Address, "BPF Loader 2"],
  ["BPFLoaderUpgradeab1e11111111111111111111111" as Address, "BPF Upgradeable Loader"],
  ["LoaderV411111111111111111111111111111111111" as Address, "Loader v4"],
  ["NativeLoader1111111111111111111111111111111" as Address, "Native Loader"],
  ["Vote111111111111111111111111111111111111111" as Address, "Vote"],
  ["Stake11111111111111111111111111111111111111" as Address, "Stake"],
  ["Config1111111111111111111111111111111111111" as Address, "Config"],
  ["AddressLookupTab1e1111111111111111111111111" as Address, "Address Lookup Table"],
  ["Ed25519SigVerify111111111111111111111111111" as Address, "Ed25519 signature verification"],
  ["KeccakSecp256k11111111111111111111111111111" as Address, "Secp256k1 signature verification"],
  ["Secp256r1SigVerify1111111111111111111111111" as Address, "Secp256r1 signature verification"],
  ["Sysvar1111111111111111111111111111111111111" as Address, "Sysvar"],
  ...MEMO_PROGRAMS.map((memo): [Address, string] => [memo, "Memo"]),
]);

const MUST_BE_A_WALLET = "the owner pays the fees and signs the transaction, so ownerAddress must be a wallet";

/**
 * SECURITY: why `ownerAddress` can never pay for and sign its registration, from the address alone:
 * a known program (the registry program included) or an address off the ed25519 curve (a PDA, which
 * no key signs for). Our config authority would otherwise sign a transaction that can never land,
 * or one in which the owner merges into a program's account slot. Null when it may be a wallet.
 */
export function ownerAddressProblem(owner: Address, registryProgram: Address): string | null {
  if (owner === registryProgram) return `ownerAddress is the registry program itself; ${MUST_BE_A_WALLET}`;
  const program = WELL_KNOWN_PROGRAMS.get(owner);
  if (program !== undefined) return `ownerAddress is the ${program} program; ${MUST_BE_A_WALLET}`;
  if (isOffCurveAddress(owner)) return `ownerAddress is off the ed25519 curve (a program-derived address): no key can sign for it; ${MUST_BE_A_WALLET}`;
  return null;
}

/** What the ledger says of the owner's account (null: no such account yet, which a wallet may be). */
export type OwnerAccountFacts = Readonly<{ owner: Address; executable: boolean }> | null;

/**
 * SECURITY: why the account at `ownerAddress` cannot be a fee payer. The runtime takes fees only
 * from System-owned accounts, so an executable account (a program) or any program's account (a
 * token account, a mint, program state) would make a transaction that can never land.
 */
export function ownerAccountProblem(account: OwnerAccountFacts): string | null {
  if (account === null) return null;
  if (account.executable) return `ownerAddress is an executable account (a program); ${MUST_BE_A_WALLET}`;
  if (account.owner !== SYSTEM_PROGRAM) {
    return `ownerAddress is an account of program ${account.owner} (a token account, a mint or program state), not a wallet; ` +
      "only System-owned accounts can pay transaction fees";
  }
  return null;
}

/**
 * SECURITY: the owner named as another account of register_agent (the collection, the fee
 * treasury, ...) would merge with it into one writable signer, a shape the IDL does not declare
 * and the signing gate refuses. Answered here as the client's mistake instead.
 */
export function ownerSlotProblem(accounts: RegisterAgentAccounts): string | null {
  for (const { name } of REGISTER_AGENT_ROLES) {
    if (name === "owner" || name === "mplCoreProgram" || name === "systemProgram") continue;
    if (accounts[name] === accounts.owner) return `ownerAddress is this registration's ${name} account; ${MUST_BE_A_WALLET} of its own`;
  }
  return null;
}
