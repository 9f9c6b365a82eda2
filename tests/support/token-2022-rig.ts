/**
 * Token-2022 mints with chosen extensions on the embedded ledger (real InitializeMint and extension
 * initializers run by the Token-2022 program in litesvm), funded parties, and payments through
 * Token-2022, for the whole-service tests of issue 24.
 */
import { type Address, type Blockhash, type Instruction, type KeyPairSigner, generateKeyPairSigner } from "@solana/kit";
import {
  type ExtensionArgs,
  extension,
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  getTransferCheckedWithFeeInstruction,
  TOKEN_2022_PROGRAM_ADDRESS,
} from "@solana-program/token-2022";
import { createToken2022Mint, mintToken2022 } from "@x84/embedded-ledger";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { settleBody } from "../../fixtures/payments.ts";
import { type Actors, buildTransaction, computeLimit, computePrice, memoInstruction, requirementsFor } from "../../fixtures/payment-builder.ts";

export const DECIMALS = 6;
const SYSTEM = "11111111111111111111111111111111" as Address;

/** A mint key made before the service starts, so USDC_MINT can name it; its authority mints and pauses. */
export type PlannedMint = Readonly<{ key: KeyPairSigner; authority: KeyPairSigner; address: Address }>;

export async function planMint(): Promise<PlannedMint> {
  const [key, authority] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  return { key, authority, address: key.address };
}

/**
 * Makes `planned` a Token-2022 mint with `extensions`. The local ledger put a placeholder SPL mint at
 * every accepted asset at boot; it is removed first, then the real transaction creates the mint.
 */
export async function createMintOn(ledger: LocalLedger, planned: PlannedMint, extensions: ExtensionArgs[], freezeAuthority: Address | null = null): Promise<Address> {
  ledger.setAccount(planned.address, { lamports: 0n, data: new Uint8Array(0), owner: SYSTEM });
  return createToken2022Mint(ledger.execute, ledger.getMinimumBalanceForRentExemption, { mint: planned.key, decimals: DECIMALS, authority: planned.authority, freezeAuthority, extensions });
}

export async function t22AtaOf(owner: Address, mint: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }))[0];
}

/** A payer holding `fund` of the mint and a payTo with an empty Token-2022 account, both real (ATA program, MintToChecked). */
export async function fundedOn(ledger: LocalLedger, planned: PlannedMint, fund: bigint): Promise<Actors> {
  const [payer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  await mintToken2022(ledger.execute, { mint: planned.address, owner: payer.address, amount: fund, decimals: DECIMALS, authority: planned.authority });
  await mintToken2022(ledger.execute, { mint: planned.address, owner: payTo.address, amount: 0n, decimals: DECIMALS, authority: planned.authority });
  return { payer, payTo, feePayer: payer };
}

export async function balanceOn(ledger: LocalLedger, owner: Address, mint: Address): Promise<bigint> {
  return ledger.getTokenAccountBalance(await t22AtaOf(owner, mint))?.amount ?? 0n;
}

/** TransferChecked through Token-2022 from the payer's account to payTo's. */
export async function t22Transfer(actors: Actors, mint: Address, amount: bigint, programAddress: Address = TOKEN_2022_PROGRAM_ADDRESS): Promise<Instruction> {
  return getTransferCheckedInstruction(
    { source: await t22AtaOf(actors.payer.address, mint), mint, destination: await t22AtaOf(actors.payTo.address, mint), authority: actors.payer, amount, decimals: DECIMALS },
    { programAddress: programAddress as typeof TOKEN_2022_PROGRAM_ADDRESS },
  );
}

export async function t22TransferWithFee(actors: Actors, mint: Address, amount: bigint, fee: bigint): Promise<Instruction> {
  return getTransferCheckedWithFeeInstruction({ source: await t22AtaOf(actors.payer.address, mint), mint, destination: await t22AtaOf(actors.payTo.address, mint), authority: actors.payer, amount, decimals: DECIMALS, fee });
}

/** The /verify and /settle body for `transfer` in the official client's layout (limit, price, transfer, memo) or `layout`. */
export async function t22Body(
  target: Readonly<{ ledger: LocalLedger; feePayer: Address }>,
  actors: Actors,
  mint: Address,
  amount: bigint,
  transfer: Instruction,
  layout: (transfer: Instruction) => Instruction[] = (t) => [computeLimit(40_000), computePrice(1n), t, memoInstruction(crypto.randomUUID())],
): Promise<Readonly<Record<string, unknown>>> {
  const { blockhash } = await target.ledger.getLatestBlockhash();
  const transaction = await buildTransaction(actors, { feePayerAddress: target.feePayer, blockhash: blockhash as Blockhash, instructions: layout(transfer) });
  return settleBody(transaction, requirementsFor(actors, { asset: mint, amount, extra: { feePayer: target.feePayer } }));
}

const fee = (bps: number, maximumFee: bigint) => ({ epoch: 0n, maximumFee, transferFeeBasisPoints: bps });

/** The extensions of each row of issue 24's table, as the tests create them. */
export const EXTENSIONS = Object.freeze({
  transferFee: (authority: Address, bps: number): ExtensionArgs =>
    extension("TransferFeeConfig", { transferFeeConfigAuthority: authority, withdrawWithheldAuthority: authority, withheldAmount: 0n, olderTransferFee: fee(bps, 1_000_000n), newerTransferFee: fee(bps, 1_000_000n) }),
  transferHook: (authority: Address, program: Address): ExtensionArgs => extension("TransferHook", { authority, programId: program }),
  permanentDelegate: (delegate: Address): ExtensionArgs => extension("PermanentDelegate", { delegate }),
  nonTransferable: (): ExtensionArgs => extension("NonTransferable", {}),
  defaultFrozen: (): ExtensionArgs => extension("DefaultAccountState", { state: 2 }),
  pausable: (authority: Address): ExtensionArgs => extension("PausableConfig", { authority, paused: false }),
  confidential: (): ExtensionArgs => extension("ConfidentialTransferMint", { authority: null, autoApproveNewAccounts: true, auditorElgamalPubkey: null }),
  neutral: (authority: Address): ExtensionArgs[] => [
    extension("MintCloseAuthority", { closeAuthority: authority }),
    extension("InterestBearingConfig", { rateAuthority: authority, initializationTimestamp: 0n, preUpdateAverageRate: 500, lastUpdateTimestamp: 0n, currentRate: 500 }),
    extension("MetadataPointer", { authority, metadataAddress: authority }),
    extension("GroupPointer", { authority, groupAddress: authority }),
  ],
});
