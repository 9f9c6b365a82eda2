import type { Address, Signature } from "@solana/kit";
import { CodedError, isCoded } from "../../domain/coded-error.ts";
import type { TokenBalanceChange } from "../../domain/modes/token-balance-changes.ts";

/** One account as the ledger holds it. `data` is the raw account bytes. */
export type AccountSnapshot = Readonly<{
  address: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
}>;

export type ProgramAccountFilter =
  | Readonly<{ memcmp: Readonly<{ offset: number; bytes: Uint8Array }> }>
  | Readonly<{ dataSize: number }>;

export type LatestBlockhash = Readonly<{ blockhash: string; lastValidBlockHeight: bigint }>;

export type SimulationOutcome =
  | Readonly<{
      ok: true;
      unitsConsumed: bigint;
      logs: readonly string[];
      /**
       * The states of `options.accounts` after the simulated transaction, in order (null: no such
       * account); absent when none were asked for or the ledger did not give them.
       */
      accounts?: readonly (AccountSnapshot | null)[];
    }>
  | Readonly<{ ok: false; error: string; logs: readonly string[] }>;

export type SimulateOptions = Readonly<{
  sigVerify?: boolean;
  /** Accounts whose post-simulation states to return with a successful simulation. */
  accounts?: readonly Address[];
}>;

export type SendOptions = Readonly<{ skipPreflight?: boolean }>;

export type ConfirmationLevel = "processed" | "confirmed" | "finalized";

/** `err` is the ledger's transaction error rendered as text, or null when it succeeded. */
export type SignatureStatus = Readonly<{
  slot: bigint;
  confirmationStatus: ConfirmationLevel;
  err: string | null;
}>;

/** How one owner's balance of one mint changed in a transaction (post - pre, summed over its token accounts). */
export type { TokenBalanceChange } from "../../domain/modes/token-balance-changes.ts";

/**
 * What the mode checks read of a landed transaction: whether it succeeded (`err` rendered as
 * for {@link SignatureStatus}) and every (owner, mint) token balance change, from the
 * ledger's pre- and post-transaction token balances (so transfers made by CPI count too).
 */
export type TransactionEffects = Readonly<{
  slot: bigint;
  err: string | null;
  tokenBalanceChanges: readonly TokenBalanceChange[];
}>;

/**
 * Everything the service needs from a Solana ledger. Implemented by the embedded
 * litesvm ledger and by the JSON-RPC adapter; both pass the same contract tests.
 * Signing is not here: a signer never touches the ledger.
 */
export type Ledger = Readonly<{
  getLatestBlockhash(): Promise<LatestBlockhash>;
  isBlockhashValid(blockhash: string): Promise<boolean>;
  getBlockHeight(): Promise<bigint>;
  getAccount(address: Address): Promise<AccountSnapshot | null>;
  getMultipleAccounts(addresses: readonly Address[]): Promise<readonly (AccountSnapshot | null)[]>;
  getProgramAccounts(program: Address, filters?: readonly ProgramAccountFilter[]): Promise<readonly AccountSnapshot[]>;
  /** Simulates wire bytes without signature verification (the fee payer slot may be empty). */
  simulateTransaction(wire: Uint8Array, options?: SimulateOptions): Promise<SimulationOutcome>;
  /**
   * Submits fully signed wire bytes. Throws {@link LedgerError}. With `skipPreflight` the ledger
   * does not simulate first (settlement already did, before signing): a transaction that cannot
   * land is then dropped or lands failed, and only its status says so.
   */
  sendTransaction(wire: Uint8Array, options?: SendOptions): Promise<Signature>;
  /** Looks up statuses, searching history so an old signature is still found. */
  getSignatureStatuses(signatures: readonly Signature[]): Promise<readonly (SignatureStatus | null)[]>;
  /**
   * A status look that leaves with this event-loop turn's sends, after them: null when the ledger
   * does not know the signature yet (it may not have executed the send, or not in order). Only
   * ledgers that batch their sends have it. Throws {@link LedgerError} when unreachable.
   */
  lookAfterSends?(signature: Signature): Promise<SignatureStatus | null>;
  /**
   * The effects of a transaction landed at `confirmed` or better; null when the ledger does not
   * know it (or it is only `processed`). Throws {@link LedgerError} when unreachable.
   */
  getTransactionEffects(signature: Signature): Promise<TransactionEffects | null>;
  /** Cheap liveness probe used by /health. Throws {@link LedgerError} when unreachable. */
  ping(): Promise<void>;
  /**
   * The hash of the ledger's genesis block, which names the cluster: a CAIP-2 id is
   * `solana:<its first 32 characters>`. Throws {@link LedgerError} when unreachable.
   */
  getGenesisHash(): Promise<string>;
}>;

/**
 * `rejected`: the ledger answered and refused (bad transaction, preflight failure);
 * retrying the same bytes gives the same answer.
 * `unavailable`: transport failure, 5xx, timeout; the outcome is unknown and a retry may work.
 */
export type LedgerErrorKind = "rejected" | "unavailable";

/** A JSON value as the ledger's RPC gives it, integers as numbers. */
export type LedgerJson = string | number | boolean | null | readonly LedgerJson[] | Readonly<{ [key: string]: LedgerJson }>;

/**
 * The ledger's transaction error, by the Solana `TransactionError` variant the RPC's JSON names:
 * `"AlreadyProcessed"`, `"BlockhashNotFound"`, `"InsufficientFundsForFee"`, or for
 * `{"InstructionError":[2,{"Custom":1}]}` the name `"InstructionError"`, index 2 and detail `{"Custom":1}`.
 */
export type TransactionErrorCode = Readonly<{
  name: string;
  /** The failing instruction of an `InstructionError`; null for every other variant. */
  instructionIndex: number | null;
  /** The variant's payload (the inner instruction error, or fields such as `{"account_index":1}`); null for unit variants. */
  detail: LedgerJson;
}>;

const LEDGER_CODE_OF_KIND = { rejected: "LEDGER_REJECTED", unavailable: "LEDGER_UNAVAILABLE" } as const;
type LedgerErrorCode = (typeof LEDGER_CODE_OF_KIND)[LedgerErrorKind];

/**
 * A coded error (LEDGER_REJECTED or LEDGER_UNAVAILABLE) that also carries what the ledger said as
 * data: the logs and the structured transaction error. It stays a subclass for those fields only;
 * branch on it with `isLedgerError`, never on its message.
 */
export class LedgerError extends CodedError<LedgerErrorCode> {
  override readonly name = "LedgerError";
  constructor(
    readonly kind: LedgerErrorKind,
    /** For people and logs only: it carries program logs, which a payer writes (a Memo is logged). */
    message: string,
    readonly logs: readonly string[] = [],
    /**
     * SECURITY: the only thing to classify a refusal by. Taken from the ledger's structured error,
     * never parsed out of `message` or `logs`; null when the ledger gave none (transport failures,
     * malformed requests, bad signatures).
     */
    readonly transactionError: TransactionErrorCode | null = null,
  ) {
    super(LEDGER_CODE_OF_KIND[kind], message);
  }
}

/** Whether the ledger answered with an error, of either kind (a refusal or an outage). */
export function isLedgerError(error: unknown): error is LedgerError {
  return isCoded(error, "LEDGER_REJECTED") || isCoded(error, "LEDGER_UNAVAILABLE");
}

/** Whether the ledger refused this transaction (as opposed to being unreachable). */
export function isLedgerRefusal(error: unknown): error is LedgerError {
  return isCoded(error, "LEDGER_REJECTED");
}
