import {
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from "litesvm/dist/internal.js";
import type { FailedTransactionMetadata } from "litesvm";

/** A transaction error in the JSON shape Solana's RPC uses (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`). */
export type TransactionErrorJson = string | Readonly<Record<string, unknown>>;

// Order matches litesvm's TransactionErrorFieldless (the runtime's own enum order).
const TRANSACTION_ERRORS = [
  "AccountInUse", "AccountLoadedTwice", "AccountNotFound", "ProgramAccountNotFound", "InsufficientFundsForFee",
  "InvalidAccountForFee", "AlreadyProcessed", "BlockhashNotFound", "CallChainTooDeep", "MissingSignatureForFee",
  "InvalidAccountIndex", "SignatureFailure", "InvalidProgramForExecution", "SanitizeFailure", "ClusterMaintenance",
  "AccountBorrowOutstanding", "WouldExceedMaxBlockCostLimit", "UnsupportedVersion", "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit", "WouldExceedAccountDataBlockLimit", "TooManyAccountLocks",
  "AddressLookupTableNotFound", "InvalidAddressLookupTableOwner", "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex", "InvalidRentPayingAccount", "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit", "MaxLoadedAccountsDataSizeExceeded", "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit", "UnbalancedTransaction", "ProgramCacheHitMaxLimit", "CommitCancelled",
] as const;

// Order matches litesvm's InstructionErrorFieldless.
const INSTRUCTION_ERRORS = [
  "GenericError", "InvalidArgument", "InvalidInstructionData", "InvalidAccountData", "AccountDataTooSmall",
  "InsufficientFunds", "IncorrectProgramId", "MissingRequiredSignature", "AccountAlreadyInitialized",
  "UninitializedAccount", "UnbalancedInstruction", "ModifiedProgramId", "ExternalAccountLamportSpend",
  "ExternalAccountDataModified", "ReadonlyLamportChange", "ReadonlyDataModified", "DuplicateAccountIndex",
  "ExecutableModified", "RentEpochModified", "NotEnoughAccountKeys", "AccountDataSizeChanged",
  "AccountNotExecutable", "AccountBorrowFailed", "AccountBorrowOutstanding", "DuplicateAccountOutOfSync",
  "InvalidError", "ExecutableDataModified", "ExecutableLamportChange", "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId", "CallDepth", "MissingAccount", "ReentrancyNotAllowed", "MaxSeedLengthExceeded",
  "InvalidSeeds", "InvalidRealloc", "ComputationalBudgetExceeded", "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure", "ProgramFailedToComplete", "ProgramFailedToCompile", "Immutable",
  "IncorrectAuthority", "AccountNotRentExempt", "InvalidAccountOwner", "ArithmeticOverflow", "UnsupportedSysvar",
  "IllegalOwner", "MaxAccountsDataAllocationsExceeded", "MaxAccountsExceeded", "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits", "BorshIoError",
] as const;

function instructionErrorJson(err: ReturnType<TransactionErrorInstructionError["err"]>): unknown {
  if (typeof err === "number") return INSTRUCTION_ERRORS[err] ?? `InstructionError${err}`;
  if (err instanceof InstructionErrorCustom) return { Custom: err.code };
  if (err instanceof InstructionErrorBorshIo) return "BorshIoError";
  return "GenericError";
}

/** Converts litesvm's error object into the RPC's JSON shape. */
export function transactionErrorJson(failed: FailedTransactionMetadata): TransactionErrorJson {
  const err = failed.err();
  if (typeof err === "number") return TRANSACTION_ERRORS[err] ?? `TransactionError${err}`;
  if (err instanceof TransactionErrorInstructionError) return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return "UnknownError";
}

const TRANSACTION_ERROR_TEXT: Readonly<Record<string, string>> = {
  AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
  AlreadyProcessed: "This transaction has already been processed",
  BlockhashNotFound: "Blockhash not found",
  InsufficientFundsForFee: "Insufficient funds for fee",
  SignatureFailure: "Transaction did not pass signature verification",
  ProgramAccountNotFound: "Attempt to load a program that does not exist",
  InvalidAccountForFee: "This account may not be used to pay transaction fees",
};

/** Human text in the style of the Solana runtime's Display, used in RPC error messages. */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === "string") return TRANSACTION_ERROR_TEXT[err] ?? err;
  const instruction = err["InstructionError"];
  if (Array.isArray(instruction)) {
    const [index, inner] = instruction as [number, unknown];
    const custom = typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>)["Custom"] : undefined;
    const detail = typeof custom === "number" ? `custom program error: 0x${custom.toString(16)}` : String(inner);
    return `Error processing Instruction ${index}: ${detail}`;
  }
  return JSON.stringify(err);
}

/** An error's textual form: its RPC JSON, so a host reading this ledger and one reading a real node over JSON-RPC see the same text. */
export function renderTransactionError(err: TransactionErrorJson): string {
  return typeof err === "string" ? err : JSON.stringify(err);
}
