import type { Address, Transaction } from "@solana/kit";
import { USDC_DECIMALS } from "../domain/networks.ts";
import { createAtaDeriver, type AtaDeriver } from "../domain/payment/associated-token-account.ts";
import { paymentIdOf, type PaymentExtensions, type PaymentRequest } from "../domain/payment/payment-request.ts";
import { settlementKeyOf } from "../domain/payment/settlement-key.ts";
import type { ReasonCode } from "../domain/reason-codes.ts";
import type { TransferChecked } from "../domain/transaction/transaction-view.ts";
import { checkRequirements } from "../domain/verification/requirement-checks.ts";
import type { VerificationPolicy } from "../domain/verification/verification-policy.ts";
import { verifyPaymentTransaction } from "../domain/verification/verify-transaction.ts";
import { LedgerError, type Ledger } from "./ports/ledger.ts";

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
  /** Blockhash check and simulation (VERIFY_SIMULATE, default true). */
  simulate: boolean;
  /** True when this transaction (settlement key) or paymentId was already settled. */
  settledLookup?: (key: string, paymentId: string | null) => Promise<boolean>;
  /** Shared ATA cache; one per process is enough. Created lazily per deps object otherwise. */
  atas?: AtaDeriver;
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
  /** The transaction's recent blockhash; settlement bounds confirmation by its lifetime. */
  recentBlockhash: string;
  /** `paymentPayload.extensions` as sent, for the settlement-mode checks. */
  extensions: PaymentExtensions | null;
  /** Units the simulation consumed, when it ran. */
  unitsConsumed?: bigint;
}>;

export type RejectedPayment = Readonly<{ ok: false; reason: ReasonCode; message: string; payer?: string }>;

export type VerifyPaymentResult = VerifiedPayment | RejectedPayment;

const sharedAtas = createAtaDeriver();

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
  const requirementProblem = checkRequirements(payload, requirements, { network: deps.network, asset: deps.asset });
  if (requirementProblem) return rejected(requirementProblem.reason, requirementProblem.message);

  const verdict = await verifyPaymentTransaction({
    transaction: payload.transaction,
    requirements,
    feePayers: typeof deps.feePayers === "function" ? deps.feePayers() : deps.feePayers,
    policy: deps.policy,
    assetDecimals: deps.assetDecimals ?? USDC_DECIMALS,
    atas: deps.atas ?? sharedAtas,
  });
  if (!verdict.ok) return rejected(verdict.rejection.reason, verdict.rejection.message, verdict.payer);
  const { view, transfer, payer } = verdict;

  const settlementKey = settlementKeyOf(view.messageBytes);
  const paymentId = paymentIdOf(payload);
  if (deps.settledLookup && (await deps.settledLookup(settlementKey, paymentId))) {
    return rejected("ALREADY_SETTLED", "this transaction or paymentId was already settled", payer);
  }

  let unitsConsumed: bigint | undefined;
  if (deps.simulate) {
    const outcome = await checkOnLedger(deps.ledger, view.wire, view.recentBlockhash);
    if (!outcome.ok) return rejected(outcome.reason, outcome.message, payer);
    unitsConsumed = outcome.unitsConsumed;
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
    amount: transfer.amount,
    transfer,
    recentBlockhash: view.recentBlockhash,
    extensions: payload.extensions,
    ...(unitsConsumed === undefined ? {} : { unitsConsumed }),
  });
}

type LedgerCheck =
  | Readonly<{ ok: true; unitsConsumed: bigint }>
  | Readonly<{ ok: false; reason: "BLOCKHASH_EXPIRED" | "SIMULATION_FAILED"; message: string }>;

/** Blockhash validity and simulation, run concurrently; a blockhash problem is reported first. */
async function checkOnLedger(ledger: Ledger, wire: Uint8Array, blockhash: string): Promise<LedgerCheck> {
  const [valid, simulation] = await Promise.all([
    sharedBlockhashCheck(ledger)(blockhash),
    simulateOrRejected(ledger, wire),
  ]);
  if (!valid) return { ok: false, reason: "BLOCKHASH_EXPIRED", message: `blockhash ${blockhash} is no longer valid` };
  if (!simulation.ok) return { ok: false, reason: "SIMULATION_FAILED", message: `simulation failed: ${simulation.error}` };
  return { ok: true, unitsConsumed: simulation.unitsConsumed };
}

type BlockhashCheck = (blockhash: string) => Promise<boolean>;

/** One shared check per ledger adapter, so every caller of verifyPayment benefits. */
const blockhashChecks = new WeakMap<Ledger, BlockhashCheck>();

/** A call older than one slot (400 ms) is not joined: its answer could predate an expiry. */
const MAX_SHARED_CALL_AGE_MS = 400;

function sharedBlockhashCheck(ledger: Ledger): BlockhashCheck {
  let check = blockhashChecks.get(ledger);
  if (!check) {
    check = createSharedBlockhashCheck(ledger);
    blockhashChecks.set(ledger, check);
  }
  return check;
}

/**
 * Concurrent verifications of the same blockhash join one in-flight `isBlockhashValid` call
 * instead of sending one each. Under load nearly every payment carries the cluster's current
 * blockhash, and that second RPC per request cost the facilitator about 180 µs and the ledger
 * about 50 µs of CPU (bench/compare-reference), more than all our own checks. Nothing is cached: once the call answers, the next
 * verification asks again; and a call is joined only while it is younger than one slot, the
 * granularity at which a blockhash can expire. Errors reach every joined caller, as before.
 */
function createSharedBlockhashCheck(ledger: Ledger): BlockhashCheck {
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
async function simulateOrRejected(
  ledger: Ledger,
  wire: Uint8Array,
): Promise<Readonly<{ ok: true; unitsConsumed: bigint }> | Readonly<{ ok: false; error: string }>> {
  try {
    return await ledger.simulateTransaction(wire, { sigVerify: false });
  } catch (error) {
    if (error instanceof LedgerError && error.kind === "rejected") return { ok: false, error: error.message };
    throw error;
  }
}

function rejected(reason: ReasonCode, message: string, payer?: string): RejectedPayment {
  return Object.freeze(payer === undefined ? { ok: false, reason, message } : { ok: false, reason, message, payer });
}
