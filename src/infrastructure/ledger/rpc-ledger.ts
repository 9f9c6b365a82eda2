import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  isSolanaError,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  type Address,
  type Base64EncodedBytes,
  type RpcTransport,
  type Signature,
} from "@solana/kit";
import type { AccountSnapshot, Ledger, ProgramAccountFilter, SignatureStatus, SimulationOutcome, TransactionEffects } from "../../application/ports/ledger.ts";
import { LedgerError, isLedgerError, isLedgerRefusal } from "../../application/ports/ledger.ts";
import { silentLogger, type Logger } from "../../application/ports/logger.ts";
import { MAX_SIGNATURES_PER_PAGE, type TransactionHistory } from "../../application/ports/transaction-history.ts";
import { tokenBalanceChanges, type TokenBalanceEntry } from "../../domain/modes/token-balance-changes.ts";
import { redactUrl, scrubUrlSecrets } from "../logging/redact.ts";
import { fromBase64, toBase64 } from "../../domain/codecs/base64.ts";
import { createJsonRpcBatcher } from "./json-rpc-batch.ts";
import { createJsonRpcFetch, isRpcHttpError, isRpcServerError, RpcServerError, u64Of } from "./json-rpc-fetch.ts";
import { landedTransactionOf } from "./rpc-landed-transaction.ts";
import { transactionErrorCodeOfData } from "./transaction-error-code.ts";

export type RpcLedgerOptions = Readonly<{
  url: string;
  /**
   * Each call's bound (LEDGER_RPC_TIMEOUT_MS, default 3 s): below the HTTP server's idle timeout
   * (Bun's 10 s), so a request waiting on a stalled node is answered, not reset.
   */
  timeoutMs?: number;
  logger?: Logger;
}>;

/** A JSON-RPC node is a Ledger and also keeps transaction history by address. */
export type RpcLedger = Ledger & TransactionHistory;

const MAX_ACCOUNTS_PER_CALL = 100;
const MAX_SIGNATURES_PER_CALL = 256;
/** JSON-RPC codes meaning the node, not the request, is at fault: retry elsewhere or later. */
const UNAVAILABLE_CODES = new Set([-32603, -32004, -32005, -32014, -32016, -32019]);
/** JSON-RPC codes meaning the request itself is malformed. */
const BAD_REQUEST_CODES = new Set([-32600, -32601, -32602]);
/** sendTransaction's preflight simulation failed; `data` is that simulation's result, `data.err` its error. */
const PREFLIGHT_FAILURE = -32002;

function isErrorResponse(value: unknown): value is { error: { code: unknown; message: unknown; data?: unknown } } {
  return typeof value === "object" && value !== null && "error" in value && typeof (value as { error: unknown }).error === "object";
}

/** Wraps kit's transport so JSON-RPC errors surface with the node's message and data. */
function createErrorPreservingTransport(base: RpcTransport): RpcTransport {
  return (async (config: Parameters<RpcTransport>[0]) => {
    const response: unknown = await base(config);
    if (isErrorResponse(response)) {
      const { code, message, data } = response.error;
      throw new RpcServerError(Number(code), typeof message === "string" ? message : "JSON-RPC error", data);
    }
    return response;
  }) as RpcTransport;
}

/** Renders the RPC's transaction error JSON identically to the embedded ledger (bigints as numbers). */
function renderErr(err: unknown): string {
  if (typeof err === "string") return err;
  return JSON.stringify(err, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v));
}

function logsOf(data: unknown): readonly string[] {
  if (typeof data !== "object" || data === null) return [];
  const logs = (data as { logs?: unknown }).logs;
  return Array.isArray(logs) ? logs.filter((l): l is string => typeof l === "string") : [];
}

/** The transaction error carried in a preflight failure's data, rendered like the embedded ledger does. */
function errSuffix(data: unknown): string {
  if (typeof data !== "object" || data === null) return "";
  const err = (data as { err?: unknown }).err;
  return err === undefined || err === null ? "" : ` (${renderErr(err)})`;
}

function withLogs(message: string, logs: readonly string[]): string {
  return logs.length > 0 ? `${message}\nlogs:\n${logs.join("\n")}` : message;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

type RawAccount = Readonly<{ data: readonly [string, string]; executable: boolean; lamports: bigint | number; owner: Address }>;

function snapshot(address: Address, account: RawAccount): AccountSnapshot {
  return Object.freeze({ address, owner: account.owner, lamports: u64Of(account.lamports, "lamports"), data: fromBase64(account.data[0]), executable: account.executable });
}

/** `{ context, value }`, the envelope of most Solana RPC answers; throws for any other shape. */
function valueOf(result: unknown, method: string): unknown {
  if (typeof result !== "object" || result === null || !("value" in result)) throw new Error(`${method}: the node's answer has no value`);
  return (result as { value: unknown }).value;
}

function arrayOf(value: unknown, length: number, method: string): readonly unknown[] {
  if (!Array.isArray(value) || value.length !== length) throw new Error(`${method}: the node answered ${Array.isArray(value) ? value.length : "no"} entries for ${length}`);
  return value;
}

type RawSimulation = Readonly<{ err?: unknown; logs?: unknown; unitsConsumed?: unknown; accounts?: unknown }>;

/** A simulateTransaction `value`; post-simulation accounts only when the node gave one per address asked. */
function simulationOf(value: unknown, addresses: readonly Address[] | undefined): SimulationOutcome {
  if (typeof value !== "object" || value === null) throw new Error("simulateTransaction: the node's value is not an object");
  const raw = value as RawSimulation;
  const logs = logsOf(raw);
  if (raw.err !== null && raw.err !== undefined) return { ok: false, error: renderErr(raw.err), logs };
  const unitsConsumed = raw.unitsConsumed === undefined || raw.unitsConsumed === null ? 0n : u64Of(raw.unitsConsumed, "unitsConsumed");
  const accounts = addresses ? postAccountsOf(raw.accounts, addresses) : null;
  return accounts === null ? { ok: true, unitsConsumed, logs } : { ok: true, unitsConsumed, logs, accounts };
}

/** Null (so the caller reads the accounts itself) unless every entry is an account in base64 or null. */
function postAccountsOf(accounts: unknown, addresses: readonly Address[]): (AccountSnapshot | null)[] | null {
  if (!Array.isArray(accounts) || accounts.length !== addresses.length) return null;
  const out: (AccountSnapshot | null)[] = [];
  for (const [i, account] of accounts.entries()) {
    if (account === null) {
      out.push(null);
      continue;
    }
    if (!isRawAccount(account)) return null;
    out.push(snapshot(addresses[i] as Address, account));
  }
  return out;
}

function isRawAccount(value: unknown): value is RawAccount {
  if (typeof value !== "object" || value === null) return false;
  const { data, executable, owner } = value as Record<string, unknown>;
  return Array.isArray(data) && typeof data[0] === "string" && data[1] === "base64" && typeof executable === "boolean" && typeof owner === "string";
}

type RawStatus = Readonly<{ slot: unknown; confirmationStatus?: SignatureStatus["confirmationStatus"] | null; err: unknown }>;

function statusOf(status: RawStatus | null): SignatureStatus | null {
  if (status === null || !status.confirmationStatus) return null;
  return { slot: u64Of(status.slot, "slot"), confirmationStatus: status.confirmationStatus, err: status.err === null || status.err === undefined ? null : renderErr(status.err) };
}

type RpcTokenBalance = Readonly<{ mint: Address; owner?: Address; uiTokenAmount: Readonly<{ amount: string }> }>;

/**
 * `preTokenBalances`/`postTokenBalances` entries with an owner. Nodes omit `owner` only for
 * transactions older than the field; such a balance cannot be attributed, so it never counts
 * as anyone's payment.
 */
function tokenBalanceEntries(balances: readonly RpcTokenBalance[] | null | undefined): TokenBalanceEntry[] {
  const entries: TokenBalanceEntry[] = [];
  for (const balance of balances ?? []) {
    if (balance.owner !== undefined) entries.push({ owner: balance.owner, mint: balance.mint, amount: BigInt(balance.uiTokenAmount.amount) });
  }
  return entries;
}

function filterOf(filter: ProgramAccountFilter) {
  if ("dataSize" in filter) return { dataSize: BigInt(filter.dataSize) };
  return {
    memcmp: { offset: BigInt(filter.memcmp.offset), bytes: toBase64(filter.memcmp.bytes) as Base64EncodedBytes, encoding: "base64" as const },
  };
}

/**
 * The Ledger port over any Solana JSON-RPC endpoint. The calls every verification and settlement
 * makes (simulation, send, status poll, account reads, block height, blockhash check) go through the plain client in
 * json-rpc-fetch.ts (sends batched per event-loop turn, json-rpc-batch.ts); the rest
 * through kit's RPC client. Transport
 * failures, timeouts, 5xx and unhealthy nodes are `unavailable`; a node refusing a
 * transaction is `rejected` with its message and logs. The URL never appears unredacted.
 */
export function createRpcLedger(options: RpcLedgerOptions): RpcLedger {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const safeUrl = redactUrl(options.url);
  const logger = (options.logger ?? silentLogger).child({ rpc: safeUrl });
  const rpc = createSolanaRpcFromTransport(createErrorPreservingTransport(createDefaultRpcTransport({ url: options.url })));
  const hotRpc = createJsonRpcFetch(options.url);
  // The sends of one event-loop turn share one batch request (json-rpc-batch.ts): the settlements
  // of one claim batch are signed and sent together, and a request of its own per send cost about
  // 80 µs of our CPU and as much of the node's (docs/performance.md, issue 26 fourth round).
  // Simulations stay single requests: batching them cost /verify throughput (the same section).
  const sendRpc = createJsonRpcBatcher(options.url, hotRpc, { timeoutMs });

  // SECURITY: error text from fetch or the node may echo the URL with its API key.
  const scrub = (text: string) => scrubUrlSecrets(text, options.url);

  function classify(error: unknown, method: string, refusable: boolean): LedgerError {
    if (isLedgerError(error)) return error;
    let result: LedgerError;
    if (isRpcServerError(error)) {
      const logs = logsOf(error.data);
      const message = scrub(withLogs(`${method}: ${error.message}${errSuffix(error.data)}`, logs));
      const rejected = !UNAVAILABLE_CODES.has(error.rpcCode) && (refusable || BAD_REQUEST_CODES.has(error.rpcCode));
      // SECURITY: the code comes from the structured `data.err` only; `message` and the logs carry
      // text a payer wrote (a Memo's), which must never decide how a refusal is classified.
      const transactionError = error.rpcCode === PREFLIGHT_FAILURE ? transactionErrorCodeOfData(error.data) : null;
      result = new LedgerError(rejected ? "rejected" : "unavailable", message, logs, transactionError);
    } else if (isRpcHttpError(error)) {
      result = new LedgerError("unavailable", `${method}: HTTP error ${error.statusCode}`);
    } else if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
      result = new LedgerError("unavailable", `${method}: HTTP error ${error.context.statusCode}`);
    } else if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      result = new LedgerError("unavailable", `${method}: timed out after ${timeoutMs} ms`);
    } else {
      const text = error instanceof Error ? error.message : String(error);
      result = new LedgerError("unavailable", scrub(`${method}: ${text}`));
    }
    logger.warn("ledger rpc call failed", { method, kind: result.kind, error: result.message });
    return result;
  }

  /** Runs one RPC call with the timeout; `refusable` marks calls where a node's "no" is an answer. */
  async function call<T>(method: string, send: (signal: AbortSignal) => Promise<T>, refusable = false): Promise<T> {
    try {
      return await send(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw classify(error, method, refusable);
    }
  }

  /** This turn's status look, asked at the end of the sends' batch (one call for all of them). */
  let looking: { readonly signatures: Signature[]; readonly statuses: Promise<readonly (SignatureStatus | null)[]> } | null = null;

  function lookAfterSends(signature: Signature): Promise<SignatureStatus | null> {
    if (!looking || looking.signatures.length >= MAX_SIGNATURES_PER_CALL) {
      const signatures: Signature[] = [];
      const statuses = new Promise<readonly (SignatureStatus | null)[]>((resolve, reject) => {
        sendRpc.atFlush(() => {
          if (looking?.signatures === signatures) looking = null;
          call("getSignatureStatuses", async (signal) => {
            const value = valueOf(await sendRpc("getSignatureStatuses", [signatures, { searchTransactionHistory: false }], signal), "getSignatureStatuses");
            return arrayOf(value, signatures.length, "getSignatureStatuses").map((status) => statusOf(status as RawStatus | null));
          }).then(resolve, reject);
        });
      });
      looking = { signatures, statuses };
    }
    const index = looking.signatures.push(signature) - 1;
    return looking.statuses.then((statuses) => statuses[index] ?? null);
  }

  async function getMultipleAccounts(addresses: readonly Address[]): Promise<readonly (AccountSnapshot | null)[]> {
    const out: (AccountSnapshot | null)[] = [];
    for (const part of chunk(addresses, MAX_ACCOUNTS_PER_CALL)) {
      const accounts = await call("getMultipleAccounts", async (signal) => {
        const value = valueOf(await hotRpc("getMultipleAccounts", [part, { encoding: "base64", commitment: "confirmed" }], signal), "getMultipleAccounts");
        return arrayOf(value, part.length, "getMultipleAccounts").map((account, i) => (account ? snapshot(part[i] as Address, account as RawAccount) : null));
      });
      out.push(...accounts);
    }
    return out;
  }

  const ledger: RpcLedger = {
    async getLatestBlockhash() {
      const { value } = await call("getLatestBlockhash", (abortSignal) => rpc.getLatestBlockhash({ commitment: "confirmed" }).send({ abortSignal }));
      return { blockhash: value.blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
    },
    async isBlockhashValid(blockhash) {
      return call("isBlockhashValid", async (signal) => {
        const value = valueOf(await hotRpc("isBlockhashValid", [blockhash, { commitment: "confirmed" }], signal), "isBlockhashValid");
        if (typeof value !== "boolean") throw new Error("isBlockhashValid: the node's value is not a boolean");
        return value;
      });
    },
    async getBlockHeight() {
      return call("getBlockHeight", async (signal) => u64Of(await hotRpc("getBlockHeight", [{ commitment: "confirmed" }], signal), "block height"));
    },
    async getAccount(address) {
      const [account] = await getMultipleAccounts([address]);
      return account ?? null;
    },
    getMultipleAccounts,
    async getProgramAccounts(program, filters = []) {
      const accounts = await call("getProgramAccounts", (abortSignal) =>
        rpc.getProgramAccounts(program, { encoding: "base64", commitment: "confirmed", filters: filters.map(filterOf) }).send({ abortSignal }),
      );
      return accounts.map(({ pubkey, account }) => snapshot(pubkey, account));
    },
    async simulateTransaction(wire, simulateOptions) {
      const addresses = simulateOptions?.accounts;
      const config = {
        encoding: "base64",
        sigVerify: simulateOptions?.sigVerify ?? false,
        commitment: "confirmed",
        ...(addresses ? { accounts: { encoding: "base64", addresses } } : {}),
      };
      try {
        return await call("simulateTransaction", async (signal) => simulationOf(valueOf(await hotRpc("simulateTransaction", [toBase64(wire), config], signal), "simulateTransaction"), addresses), true);
      } catch (error) {
        // The node refusing to simulate (undecodable bytes, bad signature) is a failed simulation.
        if (isLedgerRefusal(error)) return { ok: false, error: error.message, logs: error.logs };
        throw error;
      }
    },
    async sendTransaction(wire, sendOptions) {
      const config = sendOptions?.skipPreflight ? { encoding: "base64", skipPreflight: true } : { encoding: "base64", preflightCommitment: "confirmed" };
      return call(
        "sendTransaction",
        async (signal) => {
          const signature = await sendRpc("sendTransaction", [toBase64(wire), config], signal);
          if (typeof signature !== "string") throw new Error("sendTransaction: the node's answer is not a signature");
          return signature as Signature;
        },
        true,
      );
    },
    lookAfterSends,
    async getSignatureStatuses(signatures) {
      const out: (SignatureStatus | null)[] = [];
      for (const part of chunk(signatures, MAX_SIGNATURES_PER_CALL)) {
        const statuses = await call("getSignatureStatuses", async (signal) => {
          const value = valueOf(await hotRpc("getSignatureStatuses", [part, { searchTransactionHistory: true }], signal), "getSignatureStatuses");
          return arrayOf(value, part.length, "getSignatureStatuses").map((status) => statusOf(status as RawStatus | null));
        });
        out.push(...statuses);
      }
      return out;
    },
    async getTransactionEffects(signature): Promise<TransactionEffects | null> {
      const transaction = await call("getTransaction", (abortSignal) =>
        rpc.getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }).send({ abortSignal }),
      );
      if (transaction === null) return null;
      const meta = transaction.meta;
      // Without metadata the node cannot say what the transaction did: unknown, not "failed".
      if (meta === null) throw new LedgerError("unavailable", `getTransaction: the node returned ${signature} without metadata`);
      return Object.freeze({
        slot: BigInt(transaction.slot),
        err: meta.err === null ? null : renderErr(meta.err),
        tokenBalanceChanges: tokenBalanceChanges(tokenBalanceEntries(meta.preTokenBalances), tokenBalanceEntries(meta.postTokenBalances)),
      });
    },
    async ping() {
      await call("getHealth", (abortSignal) => rpc.getHealth().send({ abortSignal }));
    },
    getGenesisHash: () => call("getGenesisHash", async (abortSignal) => String(await rpc.getGenesisHash().send({ abortSignal }))),
    async getSignaturesForAddress(address, page = {}) {
      const limit = Math.min(Math.max(1, page.limit ?? MAX_SIGNATURES_PER_PAGE), MAX_SIGNATURES_PER_PAGE);
      const entries = await call("getSignaturesForAddress", (abortSignal) =>
        rpc
          .getSignaturesForAddress(address, { commitment: "confirmed", limit, ...(page.before ? { before: page.before } : {}) })
          .send({ abortSignal }),
      );
      return entries.map((entry) => Object.freeze({ signature: entry.signature, slot: BigInt(entry.slot), err: entry.err === null ? null : renderErr(entry.err) }));
    },
    async getTransaction(signature) {
      const transaction = await call("getTransaction", (abortSignal) =>
        rpc.getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }).send({ abortSignal }),
      );
      return transaction === null ? null : landedTransactionOf(transaction, renderErr);
    },
  };
  return Object.freeze(ledger);
}
