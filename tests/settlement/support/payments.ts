/**
 * Real payments for settlement tests: a fresh payer funded with USDC on the test's embedded
 * ledger, a merchant with an empty token account, and a kit-built transaction on a REAL
 * blockhash from that ledger, with the facilitator's fee payer in the fee-payer slot.
 */
import * as ed from "@noble/ed25519";
import { type Address, type Blockhash, generateKeyPairSigner, getBase58Decoder, getBase64Encoder, getTransactionDecoder } from "@solana/kit";
import { settlementKeyOf } from "../../../src/domain/payment/settlement-key.ts";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import {
  type Actors,
  ataOf,
  buildTransaction,
  computeLimit,
  computePrice,
  memoInstruction,
  requirementsFor,
  requirementsJson,
  transferInstruction,
  USDC,
} from "../../verification/support/payment-builder.ts";
import type { PaymentRequirements } from "../../../src/domain/payment/payment-request.ts";

export const DEFAULT_AMOUNT = 1_500_000n;
/** Solana's base fee; the payment transactions here carry no priority fee (price 0). */
export const LAMPORTS_PER_SIGNATURE = 5_000n;

export type Payment = Readonly<{
  actors: Actors;
  requirements: PaymentRequirements;
  /** Base64 wire transaction, signed by the payer only. */
  transaction: string;
  /** The JSON body /verify and /settle take. */
  body: Readonly<Record<string, unknown>>;
  payerAta: Address;
  payToAta: Address;
}>;

export type PaymentOptions = Readonly<{
  amount?: bigint;
  /** USDC given to the payer before building (default: exactly `amount`). */
  fund?: bigint;
  /** Memo text; distinct text makes otherwise equal payments distinct transactions. */
  memo?: string;
  /** Pay again as an earlier payment's payer, to its payTo (default: fresh keys). */
  actors?: Actors;
  /** The requirements' CAIP-2 network (default devnet, which the embedded ledger presents). */
  network?: string;
}>;

/** What building a funded payment needs from a ledger: the embedded one, or its JSON-RPC cheat codes. */
export type FundingLedger = Readonly<{
  setTokenAccount(owner: Address, mint: Address, update: Readonly<{ amount: bigint }>): Promise<Address>;
  getLatestBlockhash(): Promise<Readonly<{ blockhash: string }>>;
}>;

/** A funded payer, an empty merchant account and a payment on a real blockhash of `ledger`. */
export async function fundedPayment(ledger: FundingLedger, feePayer: Address, options: PaymentOptions = {}): Promise<Payment> {
  const amount = options.amount ?? DEFAULT_AMOUNT;
  const [payer, payTo] = options.actors
    ? [options.actors.payer, options.actors.payTo]
    : await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  // The fee payer's key is not ours: only its address goes into the message.
  const actors: Actors = { payer, payTo, feePayer: payer };
  const payerAta = await ledger.setTokenAccount(payer.address, USDC, { amount: options.fund ?? amount });
  const payToAta = options.actors ? await ataOf(payTo.address) : await ledger.setTokenAccount(payTo.address, USDC, { amount: 0n });
  const { blockhash } = await ledger.getLatestBlockhash();
  const transaction = await buildTransaction(actors, {
    feePayerAddress: feePayer,
    blockhash: blockhash as Blockhash,
    instructions: [
      computeLimit(20_000),
      // Price 0: the fee is then exactly 5,000 lamports per signature, which the tests assert.
      computePrice(0n),
      await transferInstruction(actors, { amount }),
      memoInstruction(options.memo ?? crypto.randomUUID()),
    ],
  });
  const requirements = requirementsFor(actors, { amount, extra: { feePayer }, ...(options.network ? { network: options.network } : {}) });
  return { actors, requirements, transaction, body: settleBody(transaction, requirements), payerAta, payToAta };
}

export function settleBody(transaction: string, requirements: PaymentRequirements): Readonly<Record<string, unknown>> {
  const json = requirementsJson(requirements);
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: json, payload: { transaction } }, paymentRequirements: json };
}

/** USDC base units in `owner`'s associated token account (0 when it does not exist). */
export async function usdcOf(ledger: LocalLedger, owner: Address): Promise<bigint> {
  return ledger.getTokenAccountBalance(await ataOf(owner))?.amount ?? 0n;
}

/** A fresh ed25519 key as the Solana CLI writes it (seed then public key) plus its address. */
export async function newFeePayerKey(): Promise<Readonly<{ json: string; address: Address }>> {
  const seed = ed.utils.randomSecretKey();
  const publicKey = await ed.getPublicKeyAsync(seed);
  return { json: JSON.stringify([...seed, ...publicKey]), address: getBase58Decoder().decode(publicKey) as Address };
}

/** The store key the service records this payment under (SHA-256 of the message bytes). */
export function settlementKeyOfPayment(payment: Payment): string {
  const wire = getBase64Encoder().encode(payment.transaction);
  return settlementKeyOf(new Uint8Array(getTransactionDecoder().decode(wire).messageBytes));
}
