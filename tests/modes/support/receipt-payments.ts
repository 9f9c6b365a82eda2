/**
 * Atomic and attestation payments as the x84 client makes them, on the embedded ledger: a REAL
 * transaction of SPL Token TransferChecked instructions signed by the payer (amount - fee to
 * payTo, the fee to the treasury), executed by litesvm, and the registry program's
 * PaymentReceipt for it written with the ledger's setAccount (the x84 program itself cannot run
 * in litesvm). Plus the payer's receipt-claim proof.
 */
import { signAsync } from "@noble/ed25519";
import {
  appendTransactionMessageInstructions,
  blockhash,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase58Encoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { findReceiptPda } from "../../../src/domain/modes/mode-pdas.ts";
import { encodePaymentReceipt, type PaymentReceipt } from "../../../src/domain/modes/payment-receipt.ts";
import { receiptClaimMessage } from "../../../src/domain/modes/receipt-claim-proof.ts";
import { DEVNET_USDC_MINT, USDC_DECIMALS } from "../../../src/domain/networks.ts";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { encodeMint } from "@x84/embedded-ledger";
import { PROGRAM_ID, receipt } from "./mode-fixtures.ts";

const USDC = DEVNET_USDC_MINT as Address;

export type Wallet = Readonly<{ secret: Uint8Array; signer: KeyPairSigner; address: Address }>;

export async function newWallet(): Promise<Wallet> {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const signer = await createKeyPairSignerFromPrivateKeyBytes(secret);
  return { secret, signer, address: signer.address };
}

export function randomPaymentIdHex(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
}

async function ata(owner: Address, mint: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
}

/** A second SPL mint (6 decimals) at a fresh address, for "paid in another token". */
export async function createOtherMint(ledger: LocalLedger): Promise<Address> {
  const mint = (await newWallet()).address;
  ledger.setAccount(mint, { lamports: ledger.getMinimumBalanceForRentExemption(82n), data: encodeMint(USDC_DECIMALS, 0n), owner: TOKEN_PROGRAM_ADDRESS });
  return mint;
}

/** One TransferChecked from the payer's associated token account of `mint` (USDC by default) to `to`'s. */
export type Movement = Readonly<{ to: Address; amount: bigint; mint?: Address }>;

/**
 * Sends one transaction, fee paid and signed by `payer`, with a TransferChecked per movement.
 * `landFailed`: skip preflight, so a transaction whose instruction fails still lands (as a
 * failed transaction, with its fee charged), as on a real cluster.
 */
export async function sendTransfers(ledger: LocalLedger, payer: KeyPairSigner, movements: readonly Movement[], landFailed = false): Promise<Signature> {
  const latest = await ledger.getLatestBlockhash();
  const instructions = await Promise.all(
    movements.map(async ({ to, amount, mint = USDC }) =>
      getTransferCheckedInstruction({ source: await ata(payer.address, mint), mint, destination: await ata(to, mint), authority: payer, amount, decimals: USDC_DECIMALS }),
    ),
  );
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const wire = new Uint8Array(getTransactionEncoder().encode(await signTransactionMessageWithSigners(message)));
  if (!landFailed) return ledger.sendTransaction(wire);
  const result = ledger.submit(wire, { skipPreflight: true });
  if (!result.ok) throw new Error(result.refusal.message);
  return result.signature;
}

export type ReceiptPaymentSpec = Readonly<{
  payer: Wallet;
  payTo: Address;
  treasury: Address;
  amount: bigint;
  feeAmount: bigint;
  mode?: "atomic" | "attestation";
  /** The receipt's resource; x84 receipts hold the endpoint path. */
  resource?: string;
  /** What the transaction really does; by default the honest split (amount - fee to payTo, fee to the treasury). */
  movements?: readonly Movement[];
  /** Land the transaction even though it fails. */
  landFailed?: boolean;
  /** Receipt fields that differ from what was paid. */
  receipt?: Partial<PaymentReceipt>;
}>;

export type ReceiptPayment = Readonly<{ paymentIdHex: string; receiptPda: Address; txSignature: Signature; receipt: PaymentReceipt }>;

/** Funds the payer (SOL for fees, `balance` USDC) and opens payTo's and the treasury's USDC accounts. */
export async function fundReceiptParties(ledger: LocalLedger, payer: Address, others: readonly Address[], balance = 10_000_000n): Promise<void> {
  await ledger.airdrop(payer, 1_000_000_000n);
  await ledger.setTokenAccount(payer, USDC, { amount: balance });
  for (const owner of others) await ledger.setTokenAccount(owner, USDC, { amount: 0n });
}

/** The payment transaction, then the PaymentReceipt naming it at the PDA of a fresh paymentId. */
export async function payWithReceipt(ledger: LocalLedger, spec: ReceiptPaymentSpec): Promise<ReceiptPayment> {
  const movements = spec.movements ?? [
    { to: spec.payTo, amount: spec.amount - spec.feeAmount },
    { to: spec.treasury, amount: spec.feeAmount },
  ];
  const txSignature = await sendTransfers(ledger, spec.payer.signer, movements, spec.landFailed);
  const paymentIdHex = randomPaymentIdHex();
  const paymentId = hexBytes(paymentIdHex);
  const [receiptPda] = await findReceiptPda(PROGRAM_ID, paymentId);
  const value = receipt({
    paymentId,
    payer: spec.payer.address,
    payee: spec.payTo,
    amount: spec.amount,
    feeAmount: spec.feeAmount,
    tokenMint: USDC,
    txSignature: new Uint8Array(getBase58Encoder().encode(txSignature)),
    resource: spec.resource ?? "/a2a",
    settlementMode: spec.mode ?? "atomic",
    ...spec.receipt,
  });
  ledger.setAccount(receiptPda, { lamports: 10_000_000n, owner: PROGRAM_ID, data: encodePaymentReceipt(value) });
  return { paymentIdHex, receiptPda, txSignature, receipt: value };
}

/** `extensions.signature` and `extensions.timestamp` of a receipt claim by `secret`. */
export async function claimProof(secret: Uint8Array, paymentIdHex: string, resource: string, timestamp: number): Promise<{ signature: string; timestamp: number }> {
  const signature = await signAsync(receiptClaimMessage({ paymentIdHex, resource, timestamp }), secret);
  return { signature: Buffer.from(signature).toString("base64"), timestamp };
}
