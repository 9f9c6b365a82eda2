import { DEVNET_GENESIS_HASH } from "../../../domain/networks.ts";
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
    // Presents as devnet, so clients and the facilitator resolve the devnet CAIP-2 id and USDC mint.
    getGenesisHash: () => DEVNET_GENESIS_HASH,
    getEpochInfo: () => ledger.epochInfo(),
    getTransactionCount: () => ledger.epochInfo().transactionCount,
    // No fee market in a single-node ledger: an empty list means "no recent priority fees".
    getRecentPrioritizationFees: () => [],
  };
}
