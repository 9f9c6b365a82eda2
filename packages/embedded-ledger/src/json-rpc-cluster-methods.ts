import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { RPC_API_VERSION, withContext, type RpcMethodTable } from "./json-rpc-account-methods.ts";
import { stringParam } from "./json-rpc-protocol.ts";

/** Reported by getVersion; clients only branch on the major version. */
const FEATURE_SET = 3_294_202_862;

export function clusterMethods(ledger: EmbeddedLedger): RpcMethodTable {
  return {
    getLatestBlockhash() {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
      return withContext(ledger, { blockhash, lastValidBlockHeight });
    },
    isBlockhashValid(params) {
      return withContext(ledger, ledger.isBlockhashValidNow(stringParam(params, 0, "blockhash")));
    },
    getSlot: () => ledger.getSlot(),
    getBlockHeight: () => ledger.getSlot(),
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": RPC_API_VERSION, "feature-set": FEATURE_SET }),
    // A host that presents the ledger as a real cluster (the facilitator: devnet) sets this hash,
    // so clients resolve that cluster's CAIP-2 id and mints.
    getGenesisHash: () => ledger.genesisHash(),
    getEpochInfo: () => ledger.epochInfo(),
    getTransactionCount: () => ledger.epochInfo().transactionCount,
    // No fee market in a single-node ledger: an empty list means "no recent priority fees".
    getRecentPrioritizationFees: () => [],
  };
}
