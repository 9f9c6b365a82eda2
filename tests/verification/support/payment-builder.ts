/**
 * Builds real payment transactions with @solana/kit and the SPL program clients, plus the
 * PaymentRequest around them. Shared by tests/verification and tests/adversarial.
 */
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import {
  AccountRole,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../../src/domain/networks.ts";
import type { PaymentRequest, PaymentRequirements } from "../../../src/domain/payment/payment-request.ts";

export const USDC = DEVNET_USDC_MINT as Address;
export const MEMO = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address;
export const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
export const BLOCKHASH = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi" as Blockhash;

export type Actors = Readonly<{ payer: KeyPairSigner; feePayer: KeyPairSigner; payTo: KeyPairSigner }>;

export async function createActors(): Promise<Actors> {
  const [payer, feePayer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  return { payer, feePayer, payTo };
}

export async function ataOf(owner: Address, mint: Address = USDC): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

export type TransferOptions = Readonly<{
  amount?: bigint;
  decimals?: number;
  mint?: Address;
  destination?: Address;
  source?: Address;
  /** Who signs the transfer as authority (default: the payer). */
  authority?: KeyPairSigner;
}>;

export async function transferInstruction(actors: Actors, options: TransferOptions = {}): Promise<Instruction> {
  const mint = options.mint ?? USDC;
  const authority = options.authority ?? actors.payer;
  return getTransferCheckedInstruction({
    source: options.source ?? (await ataOf(authority.address, mint)),
    mint,
    destination: options.destination ?? (await ataOf(actors.payTo.address, mint)),
    authority,
    amount: options.amount ?? 1_000n,
    decimals: options.decimals ?? 6,
  });
}

export function memoInstruction(text = "nonce-1234", extraAccounts: readonly Address[] = []): Instruction {
  return {
    programAddress: MEMO,
    accounts: extraAccounts.map((address) => ({ address, role: AccountRole.READONLY })),
    data: new TextEncoder().encode(text),
  };
}

/** System Program Transfer (discriminator 2, u64 lamports), written by hand to avoid an extra dependency. */
export function systemTransferInstruction(from: Address, to: Address, lamports: bigint): Instruction {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, lamports, true);
  return {
    programAddress: SYSTEM_PROGRAM,
    accounts: [
      { address: from, role: AccountRole.WRITABLE_SIGNER },
      { address: to, role: AccountRole.WRITABLE },
    ],
    data,
  };
}

export const computeLimit = (units: number): Instruction => getSetComputeUnitLimitInstruction({ units });
export const computePrice = (microLamports: bigint): Instruction => getSetComputeUnitPriceInstruction({ microLamports });

export type BuildOptions = Readonly<{
  /** Instructions in order; default: limit 20,000, price 1, the transfer, a memo (the official client's layout). */
  instructions?: readonly Instruction[];
  /** Sign the fee-payer slot too (an attack: pre-filled fee payer signature). */
  signAsFeePayer?: boolean;
  /** Use this as fee payer address instead of the facilitator's. */
  feePayerAddress?: Address;
  blockhash?: Blockhash;
  version?: 0 | "legacy";
}>;

export async function standardInstructions(actors: Actors, transfer: TransferOptions = {}): Promise<Instruction[]> {
  return [computeLimit(20_000), computePrice(1n), await transferInstruction(actors, transfer), memoInstruction()];
}

/** A partially signed base64 wire transaction. */
export async function buildTransaction(actors: Actors, options: BuildOptions = {}): Promise<string> {
  const instructions = options.instructions ?? (await standardInstructions(actors));
  const base = createTransactionMessage({ version: options.version ?? 0 });
  const withFeePayer = options.signAsFeePayer
    ? setTransactionMessageFeePayerSigner(actors.feePayer, base)
    : setTransactionMessageFeePayer(options.feePayerAddress ?? actors.feePayer.address, base);
  const message = pipe(
    withFeePayer,
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: options.blockhash ?? BLOCKHASH, lastValidBlockHeight: 1000n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  return getBase64EncodedWireTransaction(signed);
}

export function requirementsFor(actors: Actors, overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: SOLANA_DEVNET,
    asset: USDC,
    amount: 1_000n,
    payTo: actors.payTo.address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: actors.feePayer.address },
    ...overrides,
  };
}

export function paymentRequest(
  transaction: string | null,
  requirements: PaymentRequirements,
  options: Readonly<{ accepted?: PaymentRequirements; extensions?: Record<string, unknown> }> = {},
): PaymentRequest {
  return {
    paymentPayload: {
      x402Version: 2,
      accepted: options.accepted ?? requirements,
      transaction,
      extensions: options.extensions ?? null,
    },
    paymentRequirements: requirements,
    sourceVersion: 2,
  };
}

/** Base64 of wire bytes after `edit` changed them (for forged signatures and malformed bytes). */
export function editWire(base64: string, edit: (bytes: Uint8Array) => Uint8Array | void): string {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const edited = edit(bytes) ?? bytes;
  let binary = "";
  for (const byte of edited) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** JSON body for HTTP tests: bigint amounts as decimal strings, as a client sends them. */
export function requirementsJson(requirements: PaymentRequirements): Record<string, unknown> {
  return { ...requirements, amount: requirements.amount.toString() };
}
