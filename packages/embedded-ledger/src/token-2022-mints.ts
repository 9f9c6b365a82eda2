/**
 * Token-2022 mints with chosen extensions, made the honest way: the real System CreateAccount,
 * extension initializers and InitializeMint, executed by the Token-2022 program inside litesvm, so
 * every byte is what the program itself wrote. For development and tests.
 */
import {
  AccountRole,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type TransactionSigner,
  getAddressEncoder,
  getStructEncoder,
  getU32Encoder,
  getU64Encoder,
} from "@solana/kit";
import {
  type ExtensionArgs,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMintInstruction,
  getMintSize,
  getMintToCheckedInstruction,
  getPostInitializeInstructionsForMintExtensions,
  getPreInitializeInstructionsForMintExtensions,
  TOKEN_2022_PROGRAM_ADDRESS,
} from "@solana-program/token-2022";
import { SYSTEM_PROGRAM } from "@x84/solana-wire";

/** Runs instructions in one transaction paid by the ledger's faucet (which `build` may name as a payer). */
export type InstructionRunner = (build: (faucet: TransactionSigner) => readonly Instruction[]) => Promise<Signature>;

export type Token2022MintSpec = Readonly<{
  /** The new mint's key: it signs its own CreateAccount. */
  mint: KeyPairSigner;
  decimals: number;
  /** Mint authority (and the authority of extensions that take one, such as pausable); it signs. */
  authority: KeyPairSigner;
  freezeAuthority?: Address | null;
  extensions?: ExtensionArgs[];
}>;

const createAccountData = getStructEncoder([
  ["instruction", getU32Encoder()],
  ["lamports", getU64Encoder()],
  ["space", getU64Encoder()],
  ["owner", getAddressEncoder()],
]);

function signerMeta(signer: TransactionSigner): AccountSignerMeta {
  return { address: signer.address, role: AccountRole.WRITABLE_SIGNER, signer };
}

/** System CreateAccount (instruction 0). */
function createAccountInstruction(payer: TransactionSigner, account: TransactionSigner, lamports: bigint, space: number, owner: Address): Instruction {
  return {
    programAddress: SYSTEM_PROGRAM,
    accounts: [
      signerMeta(payer),
      signerMeta(account),
    ],
    data: new Uint8Array(createAccountData.encode({ instruction: 0, lamports, space: BigInt(space), owner })),
  };
}

/**
 * Creates an initialized Token-2022 mint with `extensions`, in one real transaction: CreateAccount
 * sized for the extensions, each extension's initializer, InitializeMint, then the initializers
 * that must follow it (metadata, group). Returns the mint's address.
 */
export async function createToken2022Mint(run: InstructionRunner, rentExempt: (size: bigint) => bigint, spec: Token2022MintSpec): Promise<Address> {
  const extensions = spec.extensions ?? [];
  // No extensions: the base 82-byte mint (getMintSize([]) counts an account-type byte the program refuses alone).
  const space = extensions.length === 0 ? getMintSize() : getMintSize(extensions);
  await run((faucet) => [
    createAccountInstruction(faucet, spec.mint, rentExempt(BigInt(space)), space, TOKEN_2022_PROGRAM_ADDRESS),
    ...getPreInitializeInstructionsForMintExtensions(spec.mint.address, extensions),
    getInitializeMintInstruction({ mint: spec.mint.address, decimals: spec.decimals, mintAuthority: spec.authority.address, freezeAuthority: spec.freezeAuthority ?? null }),
    ...getPostInitializeInstructionsForMintExtensions(spec.mint.address, spec.authority, extensions),
  ]);
  return spec.mint.address;
}

/** Creates `owner`'s Token-2022 associated token account for `mint` (the real ATA program) and mints `amount` into it; returns the account. */
export async function mintToken2022(
  run: InstructionRunner,
  spec: Readonly<{ mint: Address; owner: Address; amount: bigint; decimals: number; authority: KeyPairSigner }>,
): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: spec.owner, mint: spec.mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS });
  await run((faucet) => [
    getCreateAssociatedTokenIdempotentInstruction({ payer: faucet, ata, owner: spec.owner, mint: spec.mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }),
    ...(spec.amount > 0n ? [getMintToCheckedInstruction({ mint: spec.mint, token: ata, mintAuthority: spec.authority, amount: spec.amount, decimals: spec.decimals })] : []),
  ]);
  return ata;
}
