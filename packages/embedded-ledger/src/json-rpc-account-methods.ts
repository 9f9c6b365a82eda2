import { getBase58Decoder, type Address } from "@solana/kit";
import type { ProgramAccountFilter } from "./ports.ts";
import type { AccountUpdate, EmbeddedAccount, EmbeddedLedger } from "./embedded-ledger.ts";
import {
  addressParam,
  configParam,
  decodeBase58,
  decodeBase64,
  decodeHex,
  encodeBase64,
  invalidParams,
  optionalBoolean,
  u64Of,
  type Params,
} from "./json-rpc-protocol.ts";
import { formatUiAmount, type TokenAccountUpdate } from "./token-state.ts";
import { isAddressText } from "./base58.ts";

export type RpcMethod = (params: Params) => unknown;
export type RpcMethodTable = Readonly<Record<string, RpcMethod>>;

export const RPC_API_VERSION = "2.2.0";
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_FILTERS = 4;
const MAX_BASE58_DATA = 128;

export function withContext(ledger: EmbeddedLedger, value: unknown): unknown {
  return { context: { slot: ledger.getSlot(), apiVersion: RPC_API_VERSION }, value };
}

type DataSlice = Readonly<{ offset: number; length: number }> | null;

function dataSliceOf(config: Readonly<Record<string, unknown>>): DataSlice {
  const slice = config["dataSlice"];
  if (slice === undefined || slice === null) return null;
  if (typeof slice !== "object") throw invalidParams("Invalid param: dataSlice must be an object");
  const { offset, length } = slice as Record<string, unknown>;
  return { offset: Number(u64Of(offset, "dataSlice.offset")), length: Number(u64Of(length, "dataSlice.length")) };
}

function encodingOf(config: Readonly<Record<string, unknown>>): "base64" | "base58" {
  const encoding = config["encoding"] ?? "base64";
  // jsonParsed falls back to base64, as the real node does for accounts it cannot parse.
  if (encoding === "base64" || encoding === "jsonParsed") return "base64";
  if (encoding === "base58" || encoding === "binary") return "base58";
  throw invalidParams(`Invalid param: unsupported encoding ${String(encoding)}`);
}

/** Throws -32602 for an encoding or dataSlice encodeAccount would refuse (checked at subscribe time). */
export function checkAccountConfig(config: Readonly<Record<string, unknown>>): void {
  encodingOf(config);
  dataSliceOf(config);
}

export function encodeAccount(account: EmbeddedAccount, config: Readonly<Record<string, unknown>>): unknown {
  const encoding = encodingOf(config);
  const slice = dataSliceOf(config);
  const data = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data;
  if (encoding === "base58" && data.length > MAX_BASE58_DATA) {
    throw invalidParams("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.");
  }
  const text = encoding === "base58" ? getBase58Decoder().decode(data) : encodeBase64(data);
  return {
    data: [text, encoding],
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: account.rentEpoch,
    space: BigInt(account.data.length),
  };
}

function parseFilter(raw: unknown): ProgramAccountFilter {
  if (typeof raw !== "object" || raw === null) throw invalidParams("Invalid param: filter must be an object");
  const filter = raw as Record<string, unknown>;
  if ("dataSize" in filter) return { dataSize: Number(u64Of(filter["dataSize"], "dataSize")) };
  const memcmp = filter["memcmp"];
  if (typeof memcmp !== "object" || memcmp === null) throw invalidParams("Invalid param: unsupported filter");
  const { offset, bytes, encoding } = memcmp as Record<string, unknown>;
  if (typeof bytes !== "string") throw invalidParams("Invalid param: memcmp.bytes must be a string");
  const decoded = encoding === "base64" ? decodeBase64(bytes, "memcmp.bytes") : encoding === undefined || encoding === "base58" ? decodeBase58(bytes, "memcmp.bytes") : null;
  if (decoded === null) throw invalidParams("Invalid param: memcmp.encoding must be base58 or base64");
  if (decoded.length > 128) throw invalidParams("Invalid param: memcmp.bytes longer than 128 bytes");
  return { memcmp: { offset: Number(u64Of(offset, "memcmp.offset")), bytes: decoded } };
}

export function parseFilters(config: Readonly<Record<string, unknown>>): readonly ProgramAccountFilter[] {
  const filters = config["filters"];
  if (filters === undefined || filters === null) return [];
  if (!Array.isArray(filters) || filters.length > MAX_FILTERS) throw invalidParams(`Invalid param: filters must be an array of at most ${MAX_FILTERS}`);
  return filters.map(parseFilter);
}

function accountUpdateOf(raw: unknown): AccountUpdate {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalidParams("Invalid param: account update must be an object");
  const u = raw as Record<string, unknown>;
  const owner = u["owner"];
  if (owner !== undefined && (typeof owner !== "string" || !isAddressText(owner))) throw invalidParams("Invalid param: owner is not a valid base58 address");
  const data = u["data"];
  if (data !== undefined && typeof data !== "string") throw invalidParams("Invalid param: data must be a hex string");
  const executable = u["executable"];
  if (executable !== undefined && typeof executable !== "boolean") throw invalidParams("Invalid param: executable must be a boolean");
  return {
    ...(u["lamports"] !== undefined ? { lamports: u64Of(u["lamports"], "lamports") } : {}),
    ...(data !== undefined ? { data: decodeHex(data, "data") } : {}),
    ...(owner !== undefined ? { owner } : {}),
    ...(executable !== undefined ? { executable } : {}),
    ...(u["rentEpoch"] !== undefined ? { rentEpoch: u64Of(u["rentEpoch"], "rentEpoch") } : {}),
  };
}

/** Surfpool's SetSomeAccount: a base58 key, or the literal string "null" to clear. */
function someAccountOf(value: unknown, name: string): Address | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === "null") return null;
  if (typeof value !== "string" || !isAddressText(value)) throw invalidParams(`Invalid param: ${name} is not a valid base58 address`);
  return value;
}

function tokenUpdateOf(raw: unknown): TokenAccountUpdate {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalidParams("Invalid param: token account update must be an object");
  const u = raw as Record<string, unknown>;
  const state = u["state"];
  if (state !== undefined && state !== "uninitialized" && state !== "initialized" && state !== "frozen") {
    throw invalidParams("Invalid param: state must be uninitialized, initialized or frozen");
  }
  const delegate = someAccountOf(u["delegate"], "delegate");
  const closeAuthority = someAccountOf(u["closeAuthority"], "closeAuthority");
  return {
    ...(u["amount"] !== undefined ? { amount: u64Of(u["amount"], "amount") } : {}),
    ...(delegate !== undefined ? { delegate } : {}),
    ...(u["delegatedAmount"] !== undefined ? { delegatedAmount: u64Of(u["delegatedAmount"], "delegatedAmount") } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(closeAuthority !== undefined ? { closeAuthority } : {}),
  };
}

export function accountMethods(ledger: EmbeddedLedger): RpcMethodTable {
  return {
    getAccountInfo(params) {
      const target = addressParam(params, 0);
      const account = ledger.readAccountDetail(target);
      return withContext(ledger, account ? encodeAccount(account, configParam(params, 1)) : null);
    },
    getMultipleAccounts(params) {
      const list = params[0];
      if (!Array.isArray(list) || list.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Invalid param: expected an array of at most ${MAX_MULTIPLE_ACCOUNTS} addresses`);
      const config = configParam(params, 1);
      const targets = list.map((_, i) => addressParam(list, i));
      return withContext(ledger, targets.map((t) => {
        const account = ledger.readAccountDetail(t);
        return account ? encodeAccount(account, config) : null;
      }));
    },
    async getProgramAccounts(params) {
      const program = addressParam(params, 0, "program id");
      const config = configParam(params, 1);
      const filters = parseFilters(config);
      // Filtered in the ledger's copy before anything is copied out; the rent epoch is a map lookup
      // (a native read per account took ~12 s at 100,000 accounts).
      const matching = await ledger.getProgramAccounts(program, filters);
      const value = matching.map((a) => ({ pubkey: a.address, account: encodeAccount({ ...a, rentEpoch: ledger.rentEpochOf(a.address) }, config) }));
      return optionalBoolean(config, "withContext") ? withContext(ledger, value) : value;
    },
    getBalance(params) {
      return withContext(ledger, ledger.getBalance(addressParam(params, 0)));
    },
    getTokenAccountBalance(params) {
      const balance = ledger.getTokenAccountBalance(addressParam(params, 0));
      if (!balance) throw invalidParams("Invalid param: not a Token account");
      const uiAmountString = formatUiAmount(balance.amount, balance.decimals);
      return withContext(ledger, { amount: balance.amount.toString(), decimals: balance.decimals, uiAmount: Number(uiAmountString), uiAmountString });
    },
    getMinimumBalanceForRentExemption(params) {
      const size = u64Of(params[0] ?? 0, "data length");
      if (size > 10n * 1024n * 1024n) throw invalidParams("Invalid param: data length exceeds 10 MiB");
      return ledger.getMinimumBalanceForRentExemption(size);
    },
    async requestAirdrop(params) {
      const target = addressParam(params, 0);
      return ledger.requestAirdrop(target, u64Of(params[1], "lamports"));
    },
    surfnet_setAccount(params) {
      ledger.setAccount(addressParam(params, 0), accountUpdateOf(params[1] ?? {}));
      return withContext(ledger, null);
    },
    async surfnet_setTokenAccount(params) {
      const owner = addressParam(params, 0, "owner");
      const mint = addressParam(params, 1, "mint");
      const update = tokenUpdateOf(params[2] ?? {});
      const tokenProgram = params[3] === undefined || params[3] === null ? undefined : addressParam(params, 3, "token program");
      await ledger.setTokenAccount(owner, mint, update, tokenProgram);
      return withContext(ledger, null);
    },
  };
}
