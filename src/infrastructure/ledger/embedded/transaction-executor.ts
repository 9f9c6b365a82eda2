import {
  getBase58Decoder,
  getCompiledTransactionMessageEncoder,
  type Address,
  type Signature,
  type Transaction,
} from "@solana/kit";
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";
import type { Logger } from "../../../application/ports/logger.ts";
import { snapshotBalances, type TokenBalance } from "./account-reads.ts";
import type { SlotBlockhash, SlotClock } from "./slot-clock.ts";
import { describeTransactionError, transactionErrorJson, type TransactionErrorJson } from "./transaction-error.ts";
import { checkWireTransaction, type CheckedTransaction } from "./wire-guard.ts";

/** Flat fee per signature, as on every public cluster. */
export const LAMPORTS_PER_SIGNATURE = 5000n;
const ZERO_SIGNATURE = getBase58Decoder().decode(new Uint8Array(64)) as Signature;

export type TransactionRecord = Readonly<{
  signature: Signature;
  slot: bigint;
  blockTime: bigint;
  wire: Uint8Array;
  version: "legacy" | 0;
  err: TransactionErrorJson | null;
  logs: readonly string[];
  unitsConsumed: bigint;
  fee: bigint;
  preBalances: readonly bigint[];
  postBalances: readonly bigint[];
  preTokenBalances: readonly TokenBalance[];
  postTokenBalances: readonly TokenBalance[];
}>;

/**
 * Why a transaction was refused before it could land. `malformed` maps to JSON-RPC -32602,
 * `signature` to -32003, `preflight` to -32002 (with the simulation's error and logs).
 */
export type Refusal = Readonly<{
  kind: "malformed" | "signature" | "preflight";
  message: string;
  err: TransactionErrorJson | null;
  logs: readonly string[];
  unitsConsumed: bigint;
}>;

export type SubmitResult = Readonly<{ ok: true; signature: Signature }> | Readonly<{ ok: false; refusal: Refusal }>;

export type SimulationDetail = Readonly<{
  err: TransactionErrorJson | null;
  logs: readonly string[];
  unitsConsumed: bigint;
  returnData: Readonly<{ programId: Address; data: Uint8Array }> | null;
  replacementBlockhash: SlotBlockhash | null;
  fee: bigint;
}>;

export type SimulateResult = Readonly<{ ok: true; detail: SimulationDetail }> | Readonly<{ ok: false; refusal: Refusal }>;

export type SubmitOptions = Readonly<{ skipPreflight?: boolean }>;
export type SimulateOptions = Readonly<{ sigVerify?: boolean; replaceRecentBlockhash?: boolean }>;

export type TransactionExecutor = Readonly<{
  submit(wire: Uint8Array, options?: SubmitOptions): SubmitResult;
  simulate(wire: Uint8Array, options?: SimulateOptions): SimulateResult;
  record(signature: Signature): TransactionRecord | null;
  transactionCount(): bigint;
}>;

export type ExecutorDeps = Readonly<{
  svm: LiteSVM;
  slots: SlotClock;
  /** Brings litesvm's Clock sysvar to the current slot before anything executes. */
  syncClock(): void;
  logger: Logger;
  historyCapacity: number;
}>;

function refusal(kind: Refusal["kind"], message: string, err: TransactionErrorJson | null = null, logs: readonly string[] = [], unitsConsumed = 0n): Refusal {
  return Object.freeze({ kind, message, err, logs, unitsConsumed });
}

function preflightRefusal(err: TransactionErrorJson, logs: readonly string[], unitsConsumed = 0n): Refusal {
  return refusal("preflight", `Transaction simulation failed: ${describeTransactionError(err)}`, err, logs, unitsConsumed);
}

function feeOf(checked: CheckedTransaction): bigint {
  return LAMPORTS_PER_SIGNATURE * BigInt(checked.message.header.numSignerAccounts);
}

function withBlockhash(checked: CheckedTransaction, blockhash: string): Transaction {
  const messageBytes = getCompiledTransactionMessageEncoder().encode({ ...checked.message, lifetimeToken: blockhash });
  return Object.freeze({ messageBytes, signatures: checked.transaction.signatures }) as Transaction;
}

/** Runs checked transactions through litesvm with real-RPC semantics and keeps their history. */
export function createTransactionExecutor(deps: ExecutorDeps): TransactionExecutor {
  const { svm, slots, logger } = deps;
  const history = new Map<Signature, TransactionRecord>();
  let count = 0n;

  function remember(record: TransactionRecord): void {
    history.set(record.signature, record);
    // Map keeps insertion order: drop the oldest beyond capacity. Their blockhashes expired
    // long ago, so a resubmission is still refused (BlockhashNotFound).
    while (history.size > deps.historyCapacity) {
      const oldest = history.keys().next();
      if (oldest.done) break;
      history.delete(oldest.value);
    }
  }

  /** Runs litesvm's simulation, with signature checks on or off. Never throws. */
  function runSimulation(tx: Transaction, sigVerify: boolean) {
    svm.withSigverify(sigVerify);
    try {
      return svm.simulateTransaction(tx);
    } catch {
      // litesvm's wrapper throws (before reaching Rust) when a signature slot is empty.
      return null;
    } finally {
      svm.withSigverify(true);
    }
  }

  function simulateChecked(checked: CheckedTransaction, tx: Transaction, sigVerify: boolean): SimulateResult {
    deps.syncClock();
    const result = runSimulation(tx, sigVerify);
    if (result === null) return { ok: false, refusal: refusal("signature", "Transaction signature verification failure") };
    const fee = feeOf(checked);
    if (result instanceof FailedTransactionMetadata) {
      const err = transactionErrorJson(result);
      if (err === "SignatureFailure") return { ok: false, refusal: refusal("signature", "Transaction signature verification failure") };
      const meta = result.meta();
      return { ok: true, detail: { err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData: null, replacementBlockhash: null, fee } };
    }
    const meta = result.meta();
    const returned = meta.returnData();
    const returnData = returned.data().length > 0
      ? { programId: getBase58Decoder().decode(returned.programId()) as Address, data: new Uint8Array(returned.data()) }
      : null;
    return { ok: true, detail: { err: null, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData, replacementBlockhash: null, fee } };
  }

  function simulate(wire: Uint8Array, options: SimulateOptions = {}): SimulateResult {
    const checked = checkWireTransaction(wire);
    if (!checked.ok) return { ok: false, refusal: refusal("malformed", `invalid transaction: ${checked.reason}`) };
    const value = checked.value;
    if (options.replaceRecentBlockhash) {
      const latest = slots.latest();
      const result = simulateChecked(value, withBlockhash(value, latest.blockhash), options.sigVerify ?? false);
      return result.ok ? { ok: true, detail: { ...result.detail, replacementBlockhash: latest } } : result;
    }
    if (!slots.isValid(value.blockhash)) {
      return { ok: true, detail: { err: "BlockhashNotFound", logs: [], unitsConsumed: 0n, returnData: null, replacementBlockhash: null, fee: feeOf(value) } };
    }
    return simulateChecked(value, value.transaction, options.sigVerify ?? false);
  }

  function execute(checked: CheckedTransaction, signature: Signature, wire: Uint8Array): void {
    deps.syncClock();
    const accounts = checked.message.staticAccounts;
    const before = snapshotBalances(svm, accounts);
    let result: TransactionMetadata | FailedTransactionMetadata;
    try {
      result = svm.sendTransaction(checked.transaction);
    } catch {
      return; // the wrapper refused (missing signature): nothing executed, nothing lands
    }
    const failed = result instanceof FailedTransactionMetadata ? result : null;
    // A failure before execution (bad signature, unknown fee payer) charges no fee and
    // never lands; litesvm keeps only landed transactions in its own history.
    if (failed && svm.getTransaction(signature) === null) return;
    const meta = failed ? failed.meta() : (result as TransactionMetadata);
    const after = snapshotBalances(svm, accounts);
    const err = failed ? transactionErrorJson(failed) : null;
    count += 1n;
    remember(Object.freeze({
      signature,
      slot: slots.currentSlot(),
      blockTime: slots.unixTimestamp(),
      wire: new Uint8Array(wire),
      version: checked.message.version === "legacy" ? "legacy" : 0,
      err,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      fee: feeOf(checked),
      preBalances: before.lamports,
      postBalances: after.lamports,
      preTokenBalances: before.tokens,
      postTokenBalances: after.tokens,
    }));
    logger.debug("embedded ledger transaction", { signature, err: err === null ? null : describeTransactionError(err) });
  }

  function submit(wire: Uint8Array, options: SubmitOptions = {}): SubmitResult {
    const checked = checkWireTransaction(wire);
    if (!checked.ok) return { ok: false, refusal: refusal("malformed", `invalid transaction: ${checked.reason}`) };
    const value = checked.value;
    const signature = value.signature ?? ZERO_SIGNATURE;
    if (options.skipPreflight) {
      // Like a real node: without preflight, a transaction that cannot land is silently
      // dropped and the caller only learns it from getSignatureStatuses.
      if (!history.has(signature) && value.signature !== null && slots.isValid(value.blockhash)) {
        execute(value, signature, wire);
      }
      return { ok: true, signature };
    }
    if (value.signature === null) return { ok: false, refusal: refusal("signature", "Transaction signature verification failure") };
    // SECURITY: a replayed signature is refused and never executed twice.
    if (history.has(signature)) return { ok: false, refusal: preflightRefusal("AlreadyProcessed", []) };
    if (!slots.isValid(value.blockhash)) return { ok: false, refusal: preflightRefusal("BlockhashNotFound", []) };
    const preflight = simulateChecked(value, value.transaction, true);
    if (!preflight.ok) return preflight;
    if (preflight.detail.err !== null) {
      return { ok: false, refusal: preflightRefusal(preflight.detail.err, preflight.detail.logs, preflight.detail.unitsConsumed) };
    }
    execute(value, signature, wire);
    return { ok: true, signature };
  }

  return Object.freeze({
    submit,
    simulate,
    record: (signature: Signature) => history.get(signature) ?? null,
    transactionCount: () => count,
  });
}

