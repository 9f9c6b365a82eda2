import type { Address } from "@solana/kit";
import type { AccountSnapshot, Ledger } from "../ports/ledger.ts";
import { createBatcher } from "./batcher.ts";

/** Accounts per getMultipleAccounts call (the JSON-RPC limit is 100). */
const MAX_ACCOUNTS_PER_CALL = 100;
/** Reads per run: each funds check asks for 2-3 accounts, many of them shared (payees, payers). */
const MAX_READS_PER_RUN = 128;

/**
 * The ledger, with account reads of the settlements in flight batched (batcher.ts): one
 * `getMultipleAccounts` per run for every account the waiting funds checks named, each account
 * once, instead of one call per settlement. A read only joins a run that has not started, so it
 * is never older than the request: a payment that drained the source just before is seen.
 */
export function withBatchedAccountReads(ledger: Ledger): Ledger {
  const read = createBatcher(async (requests: readonly (readonly Address[])[]) => {
    const distinct = [...new Set(requests.flat())];
    const pages: Address[][] = [];
    for (let i = 0; i < distinct.length; i += MAX_ACCOUNTS_PER_CALL) pages.push(distinct.slice(i, i + MAX_ACCOUNTS_PER_CALL));
    const accounts = (await Promise.all(pages.map((page) => ledger.getMultipleAccounts(page)))).flat();
    const byAddress = new Map(distinct.map((address, index) => [address, accounts[index] ?? null]));
    return requests.map((addresses): readonly (AccountSnapshot | null)[] => addresses.map((address) => byAddress.get(address) ?? null));
  }, { maxBatch: MAX_READS_PER_RUN });
  return Object.freeze({
    ...ledger,
    getMultipleAccounts: (addresses: readonly Address[]) => read(addresses),
    getAccount: async (address: Address) => (await read([address]))[0] ?? null,
  });
}
