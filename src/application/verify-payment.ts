import type { Address, Transaction } from "@solana/kit";
import { USDC_DECIMALS } from "../domain/networks.ts";
import type { AtaDeriver } from "../domain/payment/associated-token-account.ts";
import { paymentIdOf, type PaymentExtensions, type PaymentRequest } from "../domain/payment/payment-request.ts";
import { settlementKeyOf } from "../domain/payment/settlement-key.ts";
import type { ReasonCode } from "../domain/reason-codes.ts";
import type { TransferChecked } from "../domain/transaction/transaction-view.ts";
import type { ProtocolFeeSplit } from "../domain/verification/protocol-fee.ts";
import { reject, type Rejection } from "../domain/verification/rejection.ts";
import type { MinimumAmounts } from "../domain/verification/minimum-amount.ts";
import { type SupportedKind, checkRequirements } from "../domain/verification/requirement-checks.ts";
import type { VerificationPolicy } from "../domain/verification/verification-policy.ts";
import type { VerificationKeyCache } from "../domain/verification/signature-checks.ts";
import { verifyPaymentTransaction } from "../domain/verification/verify-transaction.ts";
import { checkTransferAccounts, preflightPayment } from "./ledger-preflight.ts";
import type { TokenAccountViews } from "./modes/read-token-account.ts";
import type { Ledger } from "./ports/ledger.ts";
import type { PayToPolicy } from "./ports/pay-to-policy.ts";
import type { PayerPaymentId } from "./ports/settlement-store.ts";

export type VerifyPaymentDeps = Readonly<{
  ledger: Ledger;
  /** The facilitator's fee-payer addresses, read per request so a signer pool can change. */
  feePayers: readonly Address[] | (() => readonly Address[]);
  policy: VerificationPolicy;
  /** The one supported CAIP-2 network. */
  network: string;
  /** The one supported mint. */
  asset: Address;
  /** Decimals of `asset` (default 6, USDC). */
  assetDecimals?: number;
  /** Blockhash check, funds check and simulation (VERIFY_SIMULATE, default true). */
  simulate: boolean;
  /** Read the source token account even without simulation (VERIFY_SIMULATE=false still checks funds). */
  checkFunds?: boolean;
  /** PROTOCOL_FEE_TREASURY and PROTOCOL_FEE_BPS: admits the x84 client's two-transfer payment. */
  protocolFee?: ProtocolFeeSplit | null;
  /** Every accepted asset (USDC_MINT may list several); default `[asset]`. */
  assets?: readonly Address[];
  /** MIN_PAYMENT_AMOUNT per asset; absent means any non-zero amount. */
  minimumAmounts?: MinimumAmounts;
  /** PAYTO_POLICY other than `any`; absent means every payTo is accepted. */
  payToPolicy?: PayToPolicy;
  /** True when this transaction (settlement key), or this payer's paymentId, was already settled. */
  settledLookup?: (key: string, paymentId: PayerPaymentId | null) => Promise<boolean>;
  /** Shared ATA cache, one per process (`createVerificationCaches`): a fresh one per request would derive every ATA again. */
  atas: AtaDeriver;
  /** Imported payer signature keys, one per process (`createVerificationCaches`). */
  verificationKeys: VerificationKeyCache;
  /** Token account views by snapshot; one per process (the composition root owns it). Decoded afresh otherwise. */
  tokenViews?: TokenAccountViews;
  /** Blockhash validity shared by concurrent verifications (`createSharedBlockhashCheck`); default: ask the ledger each time. */
  blockhashCheck?: BlockhashCheck;
}>;

export type VerifiedPayment = Readonly<{
  ok: true;
  /** The TransferChecked authority: who pays. */
  payer: Address;
  /** The fee payer named in the transaction (one of ours): the key that must co-sign. */
  feePayer: Address;
  /** kit's decoded transaction, ready for `partiallySignTransaction`-style co-signing. */
  transaction: Transaction;
  wire: Uint8Array;
  messageBytes: Uint8Array;
  /** Idempotency key: hex SHA-256 of the message bytes. */
  settlementKey: string;
  paymentId: string | null;
  amount: bigint;
  transfer: TransferChecked;
  /** The payment, then the protocol fee when split. */
  transfers: readonly TransferChecked[];
  /** The transaction's recent blockhash; settlement bounds confirmation by its lifetime. */
  recentBlockhash: string;
  /** `paymentPayload.extensions` as sent, for the settlement-mode checks. */
  extensions: PaymentExtensions | null;
  /** Units the simulation consumed, when it ran. */
  unitsConsumed?: bigint;
  /** What landing the transaction costs the fee payer (base fee per signature plus priority fee). */
  feeLamports: bigint;
}>;

export type RejectedPayment = Readonly<{ ok: false; reason: ReasonCode; message: string; payer?: string }>;

export type VerifyPaymentResult = VerifiedPayment | RejectedPayment;

/**
 * Verifies a normalised payment request: requirement checks, every transaction rule, the
 * already-settled lookup, then the ledger checks (blockhash, simulation). Payment problems are
 * returned as `{ ok: false }`; only broken infrastructure (ledger unreachable) throws.
 *
 * SECURITY: /verify is unauthenticated, so nothing here calls the fee-payer signer: a KMS or HSM
 * signature per anonymous request would cost money and could be abused. Simulation runs with
 * the fee-payer slot empty and `sigVerify: false`; payer signatures are verified by us instead.
 */
export async function verifyPayment(request: PaymentRequest, deps: VerifyPaymentDeps): Promise<VerifyPaymentResult> {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  const requirementProblem =
    checkRequirements(payload, requirements, supportedKindOf(deps)) ?? (await checkPayTo(requirements.payTo, deps.payToPolicy));
  if (requirementProblem) return rejected(requirementProblem.reason, requirementProblem.message);

  const verdict = await verifyPaymentTransaction({
    transaction: payload.transaction,
    requirements,
    feePayers: typeof deps.feePayers === "function" ? deps.feePayers() : deps.feePayers,
    policy: deps.policy,
    assetDecimals: deps.assetDecimals ?? USDC_DECIMALS,
    atas: deps.atas,
    keys: deps.verificationKeys,
    protocolFee: deps.protocolFee ?? null,
  });
  if (!verdict.ok) return rejected(verdict.rejection.reason, verdict.rejection.message, verdict.payer);
  const { view, transfer, transfers, payer } = verdict;

  const settlementKey = settlementKeyOf(view.messageBytes);
  const paymentId = paymentIdOf(payload);
  if (deps.settledLookup && (await deps.settledLookup(settlementKey, paymentId === null ? null : { payer, paymentId }))) {
    const what = paymentId === null ? "this transaction" : `this transaction or paymentId ${paymentId}`;
    return rejected("ALREADY_SETTLED", `${what} was already settled`, payer);
  }

  let unitsConsumed: bigint | undefined;
  if (deps.simulate) {
    const isBlockhashValid = deps.blockhashCheck ?? ((blockhash: string) => deps.ledger.isBlockhashValid(blockhash));
    const [valid, preflight] = await Promise.all([
      isBlockhashValid(view.recentBlockhash),
      preflightPayment(deps.ledger, view.wire, transfers, requirements, deps.tokenViews),
    ]);
    // An expired blockhash says "build a new transaction"; funds say why this one cannot pay.
    if (!valid) return rejected("BLOCKHASH_EXPIRED", `blockhash ${view.recentBlockhash} is no longer valid`, payer);
    if (preflight.rejection) return rejected(preflight.rejection.reason, preflight.rejection.message, payer);
    unitsConsumed = preflight.unitsConsumed;
  } else if (deps.checkFunds) {
    const funds = await checkTransferAccounts(deps.ledger, transfers, requirements, deps.tokenViews);
    if (funds.rejection) return rejected(funds.rejection.reason, funds.rejection.message, payer);
  }

  return Object.freeze({
    ok: true,
    payer,
    feePayer: view.feePayer,
    transaction: view.transaction,
    wire: view.wire,
    messageBytes: view.messageBytes,
    settlementKey,
    paymentId,
    amount: requirements.amount,
    transfer,
    transfers,
    recentBlockhash: view.recentBlockhash,
    extensions: payload.extensions,
    ...(unitsConsumed === undefined ? {} : { unitsConsumed }),
    feeLamports: verdict.feeLamports,
  });
}

/** What the requirement checks accept, from the verification settings. */
export function supportedKindOf(deps: Pick<VerifyPaymentDeps, "network" | "asset" | "assets" | "minimumAmounts">): SupportedKind {
  return { network: deps.network, assets: deps.assets ?? [deps.asset], ...(deps.minimumAmounts ? { minimumAmounts: deps.minimumAmounts } : {}) };
}

/** SECURITY: PAYTO_POLICY. An index that cannot answer refuses: the policy fails closed. */
export async function checkPayTo(payTo: string, policy: PayToPolicy | undefined): Promise<Rejection | null> {
  if (!policy) return null;
  let allowed: boolean;
  try {
    allowed = await policy.allows(payTo);
  } catch {
    return reject("PAYTO_NOT_ALLOWED", `payTo ${payTo} cannot be checked against the ${policy.name} policy right now; retry later`);
  }
  return allowed ? null : reject("PAYTO_NOT_ALLOWED", `payTo ${payTo} is not allowed by this facilitator's ${policy.name} policy`);
}

export type BlockhashCheck = (blockhash: string) => Promise<boolean>;

/** A call older than one slot (400 ms) is not joined: its answer could predate an expiry. */
const MAX_SHARED_CALL_AGE_MS = 400;

/**
 * Concurrent verifications of the same blockhash join one in-flight `isBlockhashValid` call
 * instead of sending one each. Under load nearly every payment carries the cluster's current
 * blockhash, and that second RPC per request cost the facilitator about 180 µs and the ledger
 * about 50 µs of CPU (bench/compare-reference), more than all our own checks. Nothing is cached: once the call answers, the next
 * verification asks again; and a call is joined only while it is younger than one slot, the
 * granularity at which a blockhash can expire. Errors reach every joined caller, as before.
 */
export function createSharedBlockhashCheck(ledger: Ledger): BlockhashCheck {
  // Bounded by the number of concurrent requests: an entry lives only while its call is in flight.
  const inFlight = new Map<string, Readonly<{ issuedAt: number; answer: Promise<boolean> }>>();
  return (blockhash) => {
    const now = performance.now();
    const pending = inFlight.get(blockhash);
    if (pending && now - pending.issuedAt <= MAX_SHARED_CALL_AGE_MS) return pending.answer;
    const entry = { issuedAt: now, answer: ledger.isBlockhashValid(blockhash) };
    inFlight.set(blockhash, entry);
    const forget = () => {
      if (inFlight.get(blockhash) === entry) inFlight.delete(blockhash);
    };
    entry.answer.then(forget, forget);
    return entry.answer;
  };
}

function rejected(reason: ReasonCode, message: string, payer?: string): RejectedPayment {
  return Object.freeze(payer === undefined ? { ok: false, reason, message } : { ok: false, reason, message, payer });
}
