import type { Address, Transaction } from "@solana/kit";
import { paymentIdOf, type PaymentRequest } from "../../domain/payment/payment-request.ts";
import { settlementKeyOf } from "../../domain/payment/settlement-key.ts";
import type { TransferChecked } from "../../domain/transaction/transaction-view.ts";
import { verifyPaymentTransaction } from "../../domain/verification/verify-transaction.ts";
import { preflightPayment } from "./ledger-preflight.ts";
import type { PaymentDeps } from "./payment-deps.ts";
import { type PaymentRefusal, refused } from "./payment-refusal.ts";
import { checkPaymentRequirements } from "./requirements.ts";
import { reject } from "../../domain/rejection.ts";
import { checkMintPolicy, DEFAULT_TOKEN_2022_POLICY } from "../../domain/token/mint-policy.ts";
import { feeOf, splitFor } from "../../domain/verification/protocol-fee.ts";

/** A standard payment that passed every static rule: what /verify goes on with and /settle co-signs. */
export type StandardPayment = Readonly<{
  ok: true;
  /** The TransferChecked authority: who pays. */
  payer: Address;
  /** The fee payer named in the transaction (one of ours): the key that must co-sign. */
  feePayer: Address;
  /** kit's decoded transaction, ready for co-signing. */
  transaction: Transaction;
  wire: Uint8Array;
  /** Idempotency key: hex SHA-256 of the message bytes. */
  settlementKey: string;
  paymentId: string | null;
  amount: bigint;
  /** The payment, then the protocol fee when split. */
  transfers: readonly TransferChecked[];
  /** The transaction's recent blockhash; settlement bounds confirmation by its lifetime. */
  recentBlockhash: string;
  /** What landing the transaction costs the fee payer (base fee per signature plus priority fee). */
  feeLamports: bigint;
  /** Units the simulation consumed, when /verify ran it. */
  unitsConsumed?: bigint;
}>;

/**
 * The static rules of a standard payment, without the ledger: the requirement checks, then every
 * transaction rule (domain/verification). /settle goes on from here with its own preflight.
 */
export async function checkStandardTransaction(request: PaymentRequest, deps: PaymentDeps): Promise<StandardPayment | PaymentRefusal> {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  const requirementProblem = await checkPaymentRequirements(request, deps);
  if (requirementProblem) return refused(requirementProblem);
  // SECURITY: the token program, decimals and extensions come from the mint on the ledger, never from the client.
  const mint = await deps.mints.read(requirements.asset as Address);
  if (mint === null) return refused(reject("UNSUPPORTED_ASSET", `asset ${requirements.asset} is not a mint of SPL Token or Token-2022 on this ledger`));
  const token2022 = deps.token2022 ?? DEFAULT_TOKEN_2022_POLICY;
  const mintProblem = checkMintPolicy(mint, movedAmounts(request, deps), token2022);
  if (mintProblem) return refused(mintProblem);

  const verdict = await verifyPaymentTransaction({
    transaction: payload.transaction,
    requirements,
    feePayers: deps.feePayers(),
    policy: deps.policy,
    assetDecimals: deps.assetDecimals,
    atas: deps.atas,
    keys: deps.verificationKeys,
    protocolFee: deps.protocolFee,
    mint,
    token2022,
  });
  if (!verdict.ok) return refused(verdict.rejection, verdict.payer);
  const { view, transfers, payer } = verdict;
  return Object.freeze({
    ok: true,
    payer,
    feePayer: view.feePayer,
    transaction: view.transaction,
    wire: view.wire,
    settlementKey: settlementKeyOf(view.messageBytes),
    paymentId: paymentIdOf(payload),
    amount: requirements.amount,
    transfers,
    recentBlockhash: view.recentBlockhash,
    feeLamports: verdict.feeLamports,
  });
}

/**
 * /verify of a standard payment: the static rules, the already-settled lookup, then the ledger
 * (blockhash and simulation, VERIFY_SIMULATE). Payment problems are returned as refusals; only
 * broken infrastructure (the ledger unreachable) throws.
 *
 * SECURITY: /verify is unauthenticated, so nothing here calls the fee-payer signer: a KMS or HSM
 * signature per anonymous request would cost money and could be abused. Simulation runs with
 * the fee-payer slot empty and `sigVerify: false`; payer signatures are verified by us instead.
 */
export async function verifyStandardPayment(request: PaymentRequest, deps: PaymentDeps): Promise<StandardPayment | PaymentRefusal> {
  const payment = await checkStandardTransaction(request, deps);
  if (!payment.ok) return payment;
  const { payer, paymentId } = payment;
  if (deps.settledLookup && (await deps.settledLookup(payment.settlementKey, paymentId === null ? null : { payer, paymentId }))) {
    const what = paymentId === null ? "this transaction" : `this transaction or paymentId ${paymentId}`;
    return refused({ reason: "ALREADY_SETTLED", message: `${what} was already settled` }, payer);
  }
  if (!deps.simulate) return payment;
  const [valid, preflight] = await Promise.all([
    deps.blockhashCheck(payment.recentBlockhash),
    preflightPayment(deps.ledger, payment.wire, payment.transfers, request.paymentRequirements, deps.tokenViews),
  ]);
  // An expired blockhash says "build a new transaction"; funds say why this one cannot pay.
  if (!valid) return refused({ reason: "BLOCKHASH_EXPIRED", message: `blockhash ${payment.recentBlockhash} is no longer valid` }, payer);
  if (preflight.rejection) return refused(preflight.rejection, payer);
  return preflight.unitsConsumed === undefined ? payment : Object.freeze({ ...payment, unitsConsumed: preflight.unitsConsumed });
}

/** What the payment moves out of the payer's account: the payee's share, then the protocol fee when split. */
function movedAmounts(request: PaymentRequest, deps: PaymentDeps): readonly bigint[] {
  const amount = request.paymentRequirements.amount;
  const split = splitFor(request.paymentRequirements, deps.protocolFee);
  if (split === null) return [amount];
  const fee = feeOf(amount, split);
  return [amount - fee, fee];
}
