import { getBase58Decoder, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Address, type Signature } from "@solana/kit";
import type { TokenBalance } from "./account-reads.ts";
import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { encodeAccount, withContext, type RpcMethodTable } from "./json-rpc-account-methods.ts";
import { FINALITY_SLOTS } from "./embedded-ledger.ts";
import {
  addressParam,
  configParam,
  decodeBase58,
  decodeBase64,
  encodeBase64,
  invalidParams,
  optionalBoolean,
  RPC_ERRORS,
  RpcError,
  signatureParam,
  stringParam,
  type Params,
} from "./json-rpc-protocol.ts";
import { formatUiAmount } from "./token-state.ts";
import { LAMPORTS_PER_SIGNATURE, type Refusal, type TransactionRecord } from "./transaction-executor.ts";

const MAX_SIGNATURE_STATUSES = 256;
/** getSignaturesForAddress's cap and default, as a node's. */
const MAX_SIGNATURES_FOR_ADDRESS = 1000;

function optionalSignature(config: Readonly<Record<string, unknown>>, key: string): Signature | undefined {
  const value = config[key];
  return value === undefined || value === null ? undefined : signatureParam(value);
}
/** Longest encoded text of a 1232-byte transaction, checked before decoding. */
const MAX_ENCODED_TRANSACTION = Object.freeze({ base58: 1683, base64: 1644 });

function wireParam(params: Params, config: Readonly<Record<string, unknown>>): Uint8Array {
  const text = stringParam(params, 0, "transaction");
  // The real RPC's default for these two methods is base58.
  const encoding = config["encoding"] ?? "base58";
  if (encoding !== "base58" && encoding !== "base64") throw invalidParams(`Invalid param: unsupported encoding ${String(encoding)}`);
  if (text.length > MAX_ENCODED_TRANSACTION[encoding]) {
    throw invalidParams(`${encoding} encoded transaction too large: ${text.length} bytes (max: encoded/raw ${MAX_ENCODED_TRANSACTION[encoding]}/1232)`);
  }
  return encoding === "base64" ? decodeBase64(text, "transaction") : decodeBase58(text, "transaction");
}

/** A 1232-byte transaction names at most 38 accounts; a node refuses more addresses than its transaction has. */
const MAX_SIMULATION_ACCOUNTS = 64;

/** simulateTransaction's `accounts: { encoding, addresses }`: which post-simulation states to return, and how. */
function simulationAccountsParam(config: Readonly<Record<string, unknown>>): Readonly<{ addresses: readonly Address[]; encoding: unknown }> | null {
  const accounts = config["accounts"];
  if (accounts === undefined || accounts === null) return null;
  if (typeof accounts !== "object" || Array.isArray(accounts)) throw invalidParams("Invalid param: accounts must be an object");
  const { addresses, encoding = "base64" } = accounts as Record<string, unknown>;
  if (!Array.isArray(addresses) || addresses.length > MAX_SIMULATION_ACCOUNTS) {
    throw invalidParams(`Invalid param: accounts.addresses must be an array of at most ${MAX_SIMULATION_ACCOUNTS} addresses`);
  }
  // As the real node: account data after a simulation is never base58.
  if (encoding === "base58" || encoding === "binary") throw invalidParams("base58 encoding not supported");
  if (encoding !== "base64" && encoding !== "jsonParsed") throw invalidParams(`Invalid param: unsupported encoding ${String(encoding)}`);
  return { addresses: addresses.map((_, i) => addressParam(addresses, i)), encoding };
}

function refusalError(refusal: Refusal): RpcError {
  if (refusal.kind === "malformed") return new RpcError(RPC_ERRORS.invalidParams, refusal.message);
  if (refusal.kind === "signature") return new RpcError(RPC_ERRORS.signatureVerification, refusal.message);
  return new RpcError(RPC_ERRORS.preflightFailure, refusal.message, {
    accounts: null,
    err: refusal.err,
    innerInstructions: null,
    loadedAccountsDataSize: null,
    logs: refusal.logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed: refusal.unitsConsumed,
  });
}

function uiTokenBalance(balance: TokenBalance): unknown {
  const uiAmountString = formatUiAmount(balance.amount, balance.decimals);
  return {
    accountIndex: balance.accountIndex,
    mint: balance.mint,
    owner: balance.owner,
    programId: balance.programId,
    uiTokenAmount: { amount: balance.amount.toString(), decimals: balance.decimals, uiAmount: Number(uiAmountString), uiAmountString },
  };
}

/** The `transaction` member of getTransaction in the `json` encoding. */
function jsonTransaction(record: TransactionRecord): unknown {
  const base58 = getBase58Decoder();
  const tx = getTransactionDecoder().decode(record.wire);
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (message.version === 1) throw new RpcError(RPC_ERRORS.internal, "Internal error");
  const lookups = "addressTableLookups" in message ? (message.addressTableLookups ?? []) : [];
  return {
    signatures: Object.values(tx.signatures).map((s) => (s ? base58.decode(s) : base58.decode(new Uint8Array(64)))),
    message: {
      header: message.header,
      accountKeys: message.staticAccounts,
      recentBlockhash: message.lifetimeToken,
      instructions: message.instructions.map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: ix.accountIndices ?? [],
        data: base58.decode(ix.data ?? new Uint8Array(0)),
        stackHeight: null,
      })),
      ...(message.version === 0
        ? { addressTableLookups: lookups.map((l) => ({ accountKey: l.lookupTableAddress, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) }
        : {}),
    },
  };
}

function encodedTransaction(record: TransactionRecord, encoding: unknown): unknown {
  if (encoding === undefined || encoding === null || encoding === "json") return jsonTransaction(record);
  if (encoding === "base64") return [encodeBase64(record.wire), "base64"];
  if (encoding === "base58") return [getBase58Decoder().decode(record.wire), "base58"];
  throw invalidParams(`Invalid param: unsupported encoding ${String(encoding)}`);
}

function transactionResponse(record: TransactionRecord, config: Readonly<Record<string, unknown>>): unknown {
  const maxVersion = config["maxSupportedTransactionVersion"];
  if (record.version === 0 && (maxVersion === undefined || maxVersion === null)) {
    throw new RpcError(
      RPC_ERRORS.unsupportedTransactionVersion,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    version: record.version,
    transaction: encodedTransaction(record, config["encoding"]),
    meta: {
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      fee: record.fee,
      preBalances: record.preBalances,
      postBalances: record.postBalances,
      innerInstructions: [],
      logMessages: record.logs,
      preTokenBalances: record.preTokenBalances.map(uiTokenBalance),
      postTokenBalances: record.postTokenBalances.map(uiTokenBalance),
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: record.unitsConsumed,
    },
  };
}

export function transactionMethods(ledger: EmbeddedLedger): RpcMethodTable {
  return {
    sendTransaction(params) {
      const config = configParam(params, 1);
      const wire = wireParam(params, config);
      const result = ledger.submit(wire, { skipPreflight: optionalBoolean(config, "skipPreflight") ?? false });
      if (!result.ok) throw refusalError(result.refusal);
      return result.signature;
    },
    simulateTransaction(params) {
      const config = configParam(params, 1);
      const sigVerify = optionalBoolean(config, "sigVerify") ?? false;
      const replaceRecentBlockhash = optionalBoolean(config, "replaceRecentBlockhash") ?? false;
      if (sigVerify && replaceRecentBlockhash) throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
      const wire = wireParam(params, config);
      const asked = simulationAccountsParam(config);
      const result = ledger.simulate(wire, { sigVerify, replaceRecentBlockhash, ...(asked ? { accounts: asked.addresses } : {}) });
      if (!result.ok) throw refusalError(result.refusal);
      const { err, logs, unitsConsumed, returnData, replacementBlockhash, fee, accounts } = result.detail;
      const encoding = { encoding: asked?.encoding };
      return withContext(ledger, {
        err,
        logs,
        accounts: accounts === null ? null : accounts.map((account) => (account ? encodeAccount(account, encoding) : null)),
        unitsConsumed,
        returnData: returnData ? { programId: returnData.programId, data: [encodeBase64(returnData.data), "base64"] } : null,
        innerInstructions: null,
        replacementBlockhash: replacementBlockhash
          ? { blockhash: replacementBlockhash.blockhash, lastValidBlockHeight: replacementBlockhash.lastValidBlockHeight }
          : null,
        loadedAccountsDataSize: 0,
        fee,
      });
    },
    getSignatureStatuses(params) {
      const list = params[0];
      if (!Array.isArray(list) || list.length > MAX_SIGNATURE_STATUSES) {
        throw invalidParams(`Invalid param: expected an array of at most ${MAX_SIGNATURE_STATUSES} signatures`);
      }
      // History is always searched: the embedded ledger keeps every signature it executed.
      const statuses = ledger.statuses(list.map(signatureParam));
      return withContext(ledger, statuses.map((s) => s && {
        slot: s.slot,
        confirmations: s.confirmations,
        err: s.errJson,
        status: s.errJson === null ? { Ok: null } : { Err: s.errJson },
        confirmationStatus: s.confirmationStatus,
      }));
    },
    getSignaturesForAddress(params) {
      const target = addressParam(params, 0, "address");
      const config = configParam(params, 1);
      const limit = config["limit"] ?? MAX_SIGNATURES_FOR_ADDRESS;
      if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) {
        throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
      }
      const before = optionalSignature(config, "before");
      const until = optionalSignature(config, "until");
      const now = ledger.getSlot();
      // The ledger keeps every transaction it executed (up to its history capacity): the whole
      // history, at any commitment; confirmationStatus as getSignatureStatuses reports it.
      return ledger.signaturesForAddress(target, { limit, ...(before ? { before } : {}), ...(until ? { until } : {}) }).map((entry) => ({
        signature: entry.signature,
        slot: entry.slot,
        err: entry.err,
        memo: null,
        blockTime: entry.blockTime,
        confirmationStatus: now - entry.slot >= FINALITY_SLOTS ? "finalized" : "confirmed",
      }));
    },
    getTransaction(params) {
      const record = ledger.getTransaction(signatureParam(params[0]));
      const config = typeof params[1] === "string" ? { encoding: params[1] } : configParam(params, 1);
      return record ? transactionResponse(record, config) : null;
    },
    getFeeForMessage(params) {
      const bytes = decodeBase64(stringParam(params, 0, "message"), "message");
      let message;
      try {
        message = getCompiledTransactionMessageDecoder().decode(bytes);
      } catch {
        throw invalidParams("Invalid param: failed to deserialize message");
      }
      const valid = ledger.isBlockhashValidNow(message.lifetimeToken);
      return withContext(ledger, valid ? LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) : null);
    },
  };
}
