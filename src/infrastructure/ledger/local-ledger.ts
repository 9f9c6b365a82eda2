/**
 * The Ledger port over @x84/embedded-ledger, the ledger `npm start` runs when no RPC is set. The
 * package knows nothing of the facilitator: this adapter presents it as devnet (genesis hash, the
 * USDC mint at its real address), turns its refusals into LedgerError with the same structured
 * code the JSON-RPC adapter reads, and derives token balance changes as the domain defines them.
 */
import { address, type Address, type Signature } from "@solana/kit";
import {
  createEmbeddedLedger,
  renderTransactionError,
  type EmbeddedLedger,
  type EmbeddedLedgerOptions,
  type LedgerRpcServer,
  type Refusal,
  type ServeLedgerRpcOptions,
  serveLedgerRpc,
  TransactionRefused,
} from "@x84/embedded-ledger";
import { LedgerError, type Ledger } from "../../application/ports/ledger.ts";
import { tokenBalanceChanges } from "../../domain/modes/token-balance-changes.ts";
import { DEVNET_GENESIS_HASH, DEVNET_USDC_MINT, USDC_DECIMALS } from "../../domain/networks.ts";
import { runtimeHttpListener } from "../http-listener/runtime-http-listener.ts";
import { transactionErrorCodeOf } from "./transaction-error-code.ts";
import { backgroundTurn } from "../registry/event-loop-turns.ts";

/** The embedded ledger, with the Ledger port beside its own API (cheat codes, JSON-RPC-level reads). */
export type LocalLedger = EmbeddedLedger & Ledger;

export type LocalLedgerOptions = Omit<EmbeddedLedgerOptions, "mints" | "genesisHash"> &
  Readonly<{
    /** Further 6-decimal mints to create at boot (every accepted asset besides the devnet USDC). */
    mints?: readonly Address[];
  }>;

/** The refusal as the port's error; its code comes from the refusal's error object, as over JSON-RPC. */
function rejection(refusal: Refusal): LedgerError {
  return new LedgerError("rejected", new TransactionRefused(refusal).message, refusal.logs, transactionErrorCodeOf(refusal.err));
}

/** The Ledger port answered by an embedded ledger. */
export function ledgerPortOf(ledger: EmbeddedLedger): Ledger {
  return Object.freeze({
    async getLatestBlockhash() {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
      return { blockhash, lastValidBlockHeight };
    },
    isBlockhashValid: async (blockhash: string) => ledger.isBlockhashValidNow(blockhash),
    getBlockHeight: async () => ledger.getSlot(),
    getAccount: async (target: Address) => ledger.readAccount(target),
    getMultipleAccounts: async (targets: readonly Address[]) => targets.map((t) => ledger.readAccount(t)),
    getProgramAccounts: ledger.getProgramAccounts,
    async simulateTransaction(wire, options) {
      const addresses = options?.accounts;
      const result = ledger.simulate(wire, { sigVerify: options?.sigVerify ?? false, ...(addresses ? { accounts: addresses } : {}) });
      if (!result.ok) return { ok: false, error: result.refusal.message, logs: [] };
      const { err, logs, unitsConsumed, accounts } = result.detail;
      if (err !== null) return { ok: false, error: renderTransactionError(err), logs };
      return accounts === null ? { ok: true, unitsConsumed, logs } : { ok: true, unitsConsumed, logs, accounts };
    },
    async sendTransaction(wire, options) {
      const result = ledger.submit(wire, { skipPreflight: options?.skipPreflight ?? false });
      if (!result.ok) throw rejection(result.refusal);
      return result.signature;
    },
    getSignatureStatuses: async (signatures: readonly Signature[]) => ledger.signatureStatuses(signatures),
    async getTransactionEffects(signature) {
      // The record's token balances are read from the ledger's accounts before and after execution.
      const record = ledger.getTransaction(signature);
      if (!record) return null;
      return Object.freeze({
        slot: record.slot,
        err: record.err === null ? null : renderTransactionError(record.err),
        tokenBalanceChanges: tokenBalanceChanges(record.preTokenBalances, record.postTokenBalances),
      });
    },
    ping: async () => {},
    getGenesisHash: async () => ledger.genesisHash(),
  } satisfies Ledger);
}

/** An embedded ledger that presents as devnet, with the port beside its own API. */
export function createLocalLedger(options: LocalLedgerOptions = {}): LocalLedger {
  const usdc = address(DEVNET_USDC_MINT);
  const mints = [...new Set([usdc, ...(options.mints ?? [])])].map((mint) => ({ address: mint, decimals: USDC_DECIMALS }));
  // Its listings take turns with the registry index's slices (one slice per turn of the loop, whoever's).
  const ledger = createEmbeddedLedger({ yieldToEventLoop: backgroundTurn, ...options, mints, genesisHash: DEVNET_GENESIS_HASH });
  return Object.freeze({ ...ledger, ...ledgerPortOf(ledger) });
}

/** Serves the ledger's Solana JSON-RPC through this runtime's listener (Bun or Deno) unless one is given. */
export function serveLocalLedgerRpc(ledger: LocalLedger, options: Omit<ServeLedgerRpcOptions, "listener"> & Partial<Pick<ServeLedgerRpcOptions, "listener">> = {}): LedgerRpcServer {
  return serveLedgerRpc(ledger, { ...options, listener: options.listener ?? runtimeHttpListener() });
}
