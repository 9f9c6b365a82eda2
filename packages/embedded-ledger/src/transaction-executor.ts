import {
  getBase58Decoder,
  getCompiledTransactionMessageEncoder,
  getTransactionEncoder,
  type Address,
  type Signature,
  type Transaction,
} from "@solana/kit";
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";
import type { Account as RawAccount, SimulatedTransactionInfo } from "litesvm/dist/internal.js";
import type { AccountSnapshot } from "./ports.ts";
import type { Logger } from "./ports.ts";
import { snapshotBalances, tokenBalances, type BalanceSnapshot, type TokenBalance } from "./account-reads.ts";
import { addressOf, base58Bytes } from "./base58.ts";
import { rawLiteSvm } from "./litesvm-raw.ts";
import type { SlotBlockhash, SlotClock } from "./slot-clock.ts";
import { describeTransactionError, renderTransactionError, transactionErrorJson, type TransactionErrorJson } from "./transaction-error.ts";
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
  /** The states of `SimulateOptions.accounts` after the simulation (as they are now when it failed); null when none were asked for. */
  accounts: readonly (SimulatedAccount | null)[] | null;
}>;

/** An account as simulateTransaction's `accounts` reports it (the embedded ledger's EmbeddedAccount). */
export type SimulatedAccount = AccountSnapshot & Readonly<{ rentEpoch: bigint }>;

export type SimulateResult = Readonly<{ ok: true; detail: SimulationDetail }> | Readonly<{ ok: false; refusal: Refusal }>;

export type SubmitOptions = Readonly<{ skipPreflight?: boolean }>;
export type SimulateOptions = Readonly<{ sigVerify?: boolean; replaceRecentBlockhash?: boolean; accounts?: readonly Address[] }>;

/** What a status read needs, without decoding the record's token balances; `errText` is rendered once. */
export type TransactionOutcome = Readonly<{ slot: bigint; err: TransactionErrorJson | null; errText: string | null }>;

/** One entry of an address's history, as getSignaturesForAddress answers it. */
export type AddressSignature = Readonly<{ signature: Signature; slot: bigint; blockTime: bigint; err: TransactionErrorJson | null }>;

/** getSignaturesForAddress's paging: newest first, at most `limit`, strictly older than `before`, stopping before `until`. */
export type SignaturePage = Readonly<{ limit: number; before?: Signature; until?: Signature }>;

export type TransactionExecutor = Readonly<{
  submit(wire: Uint8Array, options?: SubmitOptions): SubmitResult;
  simulate(wire: Uint8Array, options?: SimulateOptions): SimulateResult;
  record(signature: Signature): TransactionRecord | null;
  outcome(signature: Signature): TransactionOutcome | null;
  /** Landed transactions that name `address` among their static account keys, newest first. */
  signaturesForAddress(address: Address, page: SignaturePage): readonly AddressSignature[];
  transactionCount(): bigint;
}>;

export type ExecutorDeps = Readonly<{
  svm: LiteSVM;
  slots: SlotClock;
  /** Brings litesvm's Clock sysvar to the current slot before anything executes. */
  syncClock(): void;
  logger: Logger;
  historyCapacity: number;
  /**
   * Told of every landed transaction (succeeded or failed with its fee charged): its static account
   * keys, or null when it also loaded accounts from lookup tables (then any account may have changed).
   */
  landed?: (keys: readonly Uint8Array[] | null) => void;
  /** The rent epoch the ledger reports for an account (default 0). */
  rentEpochOf?: (address: Address) => bigint;
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

function withBlockhash(checked: CheckedTransaction, blockhash: string): Uint8Array {
  const messageBytes = getCompiledTransactionMessageEncoder().encode({ ...checked.message, lifetimeToken: blockhash });
  const transaction = Object.freeze({ messageBytes, signatures: checked.transaction.signatures }) as Transaction;
  return new Uint8Array(getTransactionEncoder().encode(transaction));
}

/** litesvm's wrapper refuses (throws) before reaching Rust when a signature slot is empty and sigverify is on. */
function fullySigned(checked: CheckedTransaction): boolean {
  return Object.values(checked.transaction.signatures).every((signature) => !!signature);
}

function loadsFromLookupTables(checked: CheckedTransaction): boolean {
  return "addressTableLookups" in checked.message && (checked.message.addressTableLookups?.length ?? 0) > 0;
}

/** A landed transaction; token balances are decoded from the raw snapshots on first read. */
type HistoryEntry = {
  readonly outcome: TransactionOutcome;
  /** The static account keys, for the by-address index (lookup-table accounts are not indexed). */
  readonly addresses: readonly Address[];
  readonly base: Omit<TransactionRecord, "preTokenBalances" | "postTokenBalances">;
  readonly before: BalanceSnapshot;
  readonly after: BalanceSnapshot;
  record: TransactionRecord | null;
};

function materialize(entry: HistoryEntry): TransactionRecord {
  entry.record ??= Object.freeze({ ...entry.base, preTokenBalances: tokenBalances(entry.before), postTokenBalances: tokenBalances(entry.after) });
  return entry.record;
}

/** Runs checked transactions through litesvm with real-RPC semantics and keeps their history. */
export function createTransactionExecutor(deps: ExecutorDeps): TransactionExecutor {
  const { svm, slots, logger } = deps;
  const rentEpochOf = deps.rentEpochOf ?? (() => 0n);
  // Wire bytes and keys go to the native instance as they are: the guard proved them canonical.
  const raw = rawLiteSvm(svm);
  const history = new Map<Signature, HistoryEntry>();
  // Each address's signatures in landing order (oldest first), bounded with the history itself.
  const byAddress = new Map<Address, Signature[]>();
  let count = 0n;

  function remember(entry: HistoryEntry): void {
    history.set(entry.base.signature, entry);
    for (const address of new Set(entry.addresses)) {
      const list = byAddress.get(address);
      if (list) list.push(entry.base.signature);
      else byAddress.set(address, [entry.base.signature]);
    }
    // Map keeps insertion order: drop the oldest beyond capacity. Their blockhashes expired
    // long ago, so a resubmission is still refused (BlockhashNotFound).
    while (history.size > deps.historyCapacity) {
      const oldest = history.entries().next();
      if (oldest.done) break;
      const [signature, dropped] = oldest.value;
      history.delete(signature);
      // The oldest landed transaction is the oldest in each of its addresses' lists.
      for (const address of new Set(dropped.addresses)) {
        const list = byAddress.get(address);
        if (list?.[0] === signature) list.shift();
        if (list?.length === 0) byAddress.delete(address);
      }
    }
  }

  function signaturesForAddress(address: Address, page: SignaturePage): readonly AddressSignature[] {
    const list = byAddress.get(address) ?? [];
    let end = list.length;
    if (page.before !== undefined) {
      end = list.lastIndexOf(page.before);
      // As a node: an unknown `before` has nothing older to show.
      if (end < 0) return [];
    }
    const answer: AddressSignature[] = [];
    for (let i = end - 1; i >= 0 && answer.length < page.limit; i--) {
      const signature = list[i]!;
      if (signature === page.until) break;
      const entry = history.get(signature)!;
      answer.push(Object.freeze({ signature, slot: entry.outcome.slot, blockTime: entry.base.blockTime, err: entry.outcome.err }));
    }
    return answer;
  }

  /** Runs litesvm's simulation of canonical `txBytes`, with signature checks on or off. Never throws. */
  function runSimulation(checked: CheckedTransaction, txBytes: Uint8Array, sigVerify: boolean) {
    // As litesvm's wrapper: with sigverify on, an empty signature slot is refused before Rust.
    if (sigVerify && !fullySigned(checked)) return null;
    svm.withSigverify(sigVerify);
    try {
      return checked.message.version === "legacy" ? raw.simulateLegacyTransaction(txBytes) : raw.simulateVersionedTransaction(txBytes);
    } catch {
      return null;
    } finally {
      svm.withSigverify(true);
    }
  }

  /**
   * `addresses` as a node's simulateTransaction `accounts` gives them: an account the simulation
   * wrote, as it left it; any other (every one, when the simulation failed) as the ledger holds it.
   */
  function accountsAfter(addresses: readonly Address[] | undefined, simulated: SimulatedTransactionInfo | null): (SimulatedAccount | null)[] | null {
    if (addresses === undefined) return null;
    const post = new Map<string, RawAccount>();
    const wanted = new Set<string>(addresses);
    // Only the asked accounts are copied out of the simulation (each copy crosses into Rust).
    for (const entry of simulated?.postAccounts() ?? []) {
      const address = addressOf(entry.address);
      if (wanted.has(address)) post.set(address, entry.account());
    }
    return addresses.map((address) => snapshotOf(address, post.get(address) ?? raw.getAccount(base58Bytes(address))));
  }

  /** No lamports means no account, as a node answers. */
  function snapshotOf(address: Address, account: RawAccount | null | undefined): SimulatedAccount | null {
    if (!account) return null;
    const lamports = account.lamports();
    if (lamports === 0n) return null;
    const data = new Uint8Array(account.data());
    return Object.freeze({ address, owner: addressOf(account.owner()), lamports, data, executable: account.executable(), rentEpoch: rentEpochOf(address) });
  }

  function simulateChecked(checked: CheckedTransaction, txBytes: Uint8Array, sigVerify: boolean, addresses?: readonly Address[]): SimulateResult {
    deps.syncClock();
    const result = runSimulation(checked, txBytes, sigVerify);
    if (result === null) return { ok: false, refusal: refusal("signature", "Transaction signature verification failure") };
    const fee = feeOf(checked);
    if (result instanceof FailedTransactionMetadata) {
      const err = transactionErrorJson(result);
      if (err === "SignatureFailure") return { ok: false, refusal: refusal("signature", "Transaction signature verification failure") };
      const meta = result.meta();
      const accounts = accountsAfter(addresses, null);
      return { ok: true, detail: { err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData: null, replacementBlockhash: null, fee, accounts } };
    }
    const meta = result.meta();
    const returned = meta.returnData();
    const returnData = returned.data().length > 0
      ? { programId: getBase58Decoder().decode(returned.programId()) as Address, data: new Uint8Array(returned.data()) }
      : null;
    const accounts = accountsAfter(addresses, result);
    return { ok: true, detail: { err: null, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData, replacementBlockhash: null, fee, accounts } };
  }

  function simulate(wire: Uint8Array, options: SimulateOptions = {}): SimulateResult {
    const checked = checkWireTransaction(wire);
    if (!checked.ok) return { ok: false, refusal: refusal("malformed", `invalid transaction: ${checked.reason}`) };
    const value = checked.value;
    if (options.replaceRecentBlockhash) {
      const latest = slots.latest();
      const result = simulateChecked(value, withBlockhash(value, latest.blockhash), options.sigVerify ?? false, options.accounts);
      return result.ok ? { ok: true, detail: { ...result.detail, replacementBlockhash: latest } } : result;
    }
    if (!slots.isValid(value.blockhash)) {
      const accounts = accountsAfter(options.accounts, null);
      return { ok: true, detail: { err: "BlockhashNotFound", logs: [], unitsConsumed: 0n, returnData: null, replacementBlockhash: null, fee: feeOf(value), accounts } };
    }
    return simulateChecked(value, wire, options.sigVerify ?? false, options.accounts);
  }

  function execute(checked: CheckedTransaction, signature: Signature, wire: Uint8Array): void {
    deps.syncClock();
    // litesvm's wrapper refuses a missing signature before Rust: nothing executes, nothing lands.
    const signatureBytes = checked.transaction.signatures[checked.feePayer];
    if (!signatureBytes || !fullySigned(checked)) return;
    const before = snapshotBalances(raw, checked.accountKeys);
    let result: TransactionMetadata | FailedTransactionMetadata;
    try {
      result = checked.message.version === "legacy" ? raw.sendLegacyTransaction(wire) : raw.sendVersionedTransaction(wire);
    } catch {
      return;
    }
    const failed = result instanceof FailedTransactionMetadata ? result : null;
    // A failure before execution (bad signature, unknown fee payer) charges no fee and
    // never lands; litesvm keeps only landed transactions in its own history.
    if (failed && raw.getTransaction(Uint8Array.from(signatureBytes)) === null) return;
    const meta = failed ? failed.meta() : (result as TransactionMetadata);
    deps.landed?.(loadsFromLookupTables(checked) ? null : checked.accountKeys);
    const after = snapshotBalances(raw, checked.accountKeys);
    const err = failed ? transactionErrorJson(failed) : null;
    const slot = slots.currentSlot();
    count += 1n;
    remember({
      outcome: Object.freeze({ slot, err, errText: err === null ? null : renderTransactionError(err) }),
      addresses: checked.accountKeys.map(addressOf),
      base: {
        signature,
        slot,
        blockTime: slots.unixTimestamp(),
        wire: new Uint8Array(wire),
        version: checked.message.version === "legacy" ? "legacy" : 0,
        err,
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        fee: feeOf(checked),
        preBalances: before.lamports,
        postBalances: after.lamports,
      },
      before,
      after,
      record: null,
    });
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
    const preflight = simulateChecked(value, wire, true);
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
    record(signature: Signature) {
      const entry = history.get(signature);
      return entry ? materialize(entry) : null;
    },
    outcome: (signature: Signature) => history.get(signature)?.outcome ?? null,
    signaturesForAddress,
    transactionCount: () => count,
  });
}

