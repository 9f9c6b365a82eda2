import type { Address, Transaction } from "@solana/kit";
import { USDC_DECIMALS } from "../domain/networks.ts";
import type { AtaDeriver } from "../domain/payment/associated-token-account.ts";
import { paymentIdOf, type PaymentExtensions, type PaymentRequest } from "../domain/payment/payment-request.ts";
import { settlementKeyOf } from "../domain/payment/settlement-key.ts";
import type { ReasonCode } from "../domain/reason-codes.ts";
import type { TransferChecked } from "../domain/transaction/transaction-view.ts";
import { checkDestinationAccount, checkSourceFunds, checkSourceNotPayee } from "../domain/verification/funds-check.ts";
import type { ProtocolFeeSplit } from "../domain/verification/protocol-fee.ts";
import { reject, type Rejection } from "../domain/verification/rejection.ts";
import { checkRequirements } from "../domain/verification/requirement-checks.ts";
import type { VerificationPolicy } from "../domain/verification/verification-policy.ts";
import type { VerificationKeyCache } from "../domain/verification/signature-checks.ts";
import { verifyPaymentTransaction } from "../domain/verification/verify-transaction.ts";
import { type TokenAccountViews, toTokenAccountView } from "./modes/read-token-account.ts";
import { type AccountSnapshot, type Ledger, type SimulationOutcome, isLedgerRefusal } from "./ports/ledger.ts";
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
    checkRequirements(payload, requirements, { network: deps.network, assets: deps.assets ?? [deps.asset] }) ?? (await checkPayTo(requirements.payTo, deps.payToPolicy));
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
    const outcome = await checkOnLedger(deps.ledger, isBlockhashValid, view.wire, view.recentBlockhash, transfer.source);
    // An expired blockhash says "build a new transaction"; funds say why this one cannot pay.
    if (!outcome.ok && outcome.reason === "BLOCKHASH_EXPIRED") return rejected(outcome.reason, outcome.message, payer);
    const settled = outcome.ok ? fundsSettledBySimulation(outcome.source, transfers, requirements) : UNSETTLED;
    // A failed simulation (the slow path: honest payments succeed) reads the accounts to say why.
    const funds = settled === UNSETTLED ? await checkTransferAccounts(deps.ledger, transfers, requirements, deps.tokenViews) : settled;
    if (funds) return rejected(funds.reason, funds.message, payer);
    if (!outcome.ok) return rejected(outcome.reason, outcome.message, payer);
    unitsConsumed = outcome.unitsConsumed;
  } else if (deps.checkFunds) {
    const funds = await checkTransferAccounts(deps.ledger, transfers, requirements, deps.tokenViews);
    if (funds) return rejected(funds.reason, funds.message, payer);
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

/**
 * The transfer's two token accounts as the ledger has them now, in one read: the source can pay
 * (and is not the payee's), the destination can receive. See domain/verification/funds-check.ts.
 */
export async function checkTransferAccounts(
  ledger: Ledger,
  transfers: readonly TransferChecked[],
  requirements: VerifiedRequirements,
  views: TokenAccountViews = UNCACHED_VIEWS,
): Promise<Rejection | null> {
  const [first] = transfers;
  if (!first) return null;
  // All transfers share the source (checked with the split); each has its own destination.
  const [source = null, ...destinations] = await ledger.getMultipleAccounts([first.source, ...transfers.map((t) => t.destination)]);
  const total = transfers.reduce((sum, t) => sum + t.amount, 0n);
  return (
    checkSourceFunds(views.of(source), first, requirements, total) ??
    transfers.reduce<Rejection | null>((found, t, i) => found ?? checkDestinationAccount(views.of(destinations[i] ?? null), t), null)
  );
}

type VerifiedRequirements = PaymentRequest["paymentRequirements"];

const UNSETTLED = Symbol("unsettled");

/**
 * SECURITY: what checkTransferAccounts would answer, from a simulation that succeeded, without a
 * second ledger read. The transaction holds only TransferChecked (SPL Token), ComputeBudget and
 * Memo instructions (transaction-checks.ts), and a TransferChecked that succeeds proves, rule by
 * rule of funds-check.ts:
 * - source is an SPL token account: the token program unpacks it (initialized, 165 bytes) and
 *   writes it, which only the owning program may;
 * - source mint: it must equal the instruction's mint account (MintMismatch otherwise);
 * - source frozen: AccountFrozen otherwise;
 * - authority is the owner or the delegate: OwnerMismatch otherwise (the program takes the
 *   delegate path first, so a success never allows more than funds-check's `spendableBy`);
 * - balance, or allowance, covers the total: the transfers run in order from the same source, so
 *   InsufficientFunds is raised as soon as the sum exceeds either;
 * - each destination is an initialized token account of the mint, not frozen: unpacked, mint
 *   compared and frozen checked by each TransferChecked.
 * Only SELF_PAYMENT is left, the source owner against payTo: read from the source's
 * post-simulation state, whose owner a transfer never changes (SetAuthority is refused). Without
 * that state (a ledger that did not return it), the accounts are read as when simulation fails.
 */
function fundsSettledBySimulation(
  source: AccountSnapshot | null | undefined,
  transfers: readonly TransferChecked[],
  requirements: VerifiedRequirements,
): Rejection | null | typeof UNSETTLED {
  const [first] = transfers;
  // Post-simulation snapshots are new objects each time: a cache would never hit.
  const account = toTokenAccountView(source ?? null);
  if (!first || account === null || account.mint !== first.mint) return UNSETTLED;
  return checkSourceNotPayee(account, first, requirements);
}

const UNCACHED_VIEWS: TokenAccountViews = Object.freeze({ of: toTokenAccountView });

type LedgerCheck =
  | Readonly<{ ok: true; unitsConsumed: bigint; source: AccountSnapshot | null | undefined }>
  | Readonly<{ ok: false; reason: "BLOCKHASH_EXPIRED" | "SIMULATION_FAILED"; message: string }>;

/**
 * Blockhash validity and simulation, run concurrently; a blockhash problem is reported first. A
 * success carries `source` as the simulation left it (undefined when the ledger did not say).
 */
async function checkOnLedger(ledger: Ledger, isBlockhashValid: BlockhashCheck, wire: Uint8Array, blockhash: string, source: Address): Promise<LedgerCheck> {
  const [valid, simulation] = await Promise.all([
    isBlockhashValid(blockhash),
    simulateOrRejected(ledger, wire, source),
  ]);
  if (!valid) return { ok: false, reason: "BLOCKHASH_EXPIRED", message: `blockhash ${blockhash} is no longer valid` };
  if (!simulation.ok) return { ok: false, reason: "SIMULATION_FAILED", message: `simulation failed: ${simulation.error}` };
  return { ok: true, unitsConsumed: simulation.unitsConsumed, source: simulation.accounts?.[0] };
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

/** A ledger that refuses the bytes outright is a failed simulation; an unreachable one throws on. */
async function simulateOrRejected(ledger: Ledger, wire: Uint8Array, source: Address): Promise<SimulationOutcome | Readonly<{ ok: false; error: string }>> {
  try {
    return await ledger.simulateTransaction(wire, { sigVerify: false, accounts: [source] });
  } catch (error) {
    if (isLedgerRefusal(error)) return { ok: false, error: error.message };
    throw error;
  }
}

function rejected(reason: ReasonCode, message: string, payer?: string): RejectedPayment {
  return Object.freeze(payer === undefined ? { ok: false, reason, message } : { ok: false, reason, message, payer });
}
