import { type Ledger, isLedgerError } from "../ports/ledger.ts";
import { createBatcher } from "./batcher.ts";

/** Blocks for which a blockhash stays valid after it is issued (Solana's MAX_PROCESSING_AGE). */
export const BLOCKHASH_LIFETIME_BLOCKS = 150n;

export type BlockhashWindow =
  | Readonly<{ kind: "valid"; lastValidBlockHeight: bigint }>
  | Readonly<{ kind: "expired" }>
  | Readonly<{ kind: "unavailable"; error: string }>;

export type BlockhashWindowReader = (blockhash: string) => Promise<BlockhashWindow>;

/**
 * Read before the claim, so an unreachable ledger leaves nothing behind (no record, no send)
 * and the client gets SETTLEMENT_FAILED instead of an opaque 500. Both reads run at once: any
 * height read after the blockhash was issued, plus its lifetime, bounds its last valid height.
 */
export async function readBlockhashWindow(ledger: Ledger, blockhash: string): Promise<BlockhashWindow> {
  try {
    const [valid, height] = await Promise.all([ledger.isBlockhashValid(blockhash), ledger.getBlockHeight()]);
    return valid ? { kind: "valid", lastValidBlockHeight: height + BLOCKHASH_LIFETIME_BLOCKS } : { kind: "expired" };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { kind: "unavailable", error: error.message };
  }
}

/**
 * The blockhash checks of the settlements in flight, batched (batcher.ts): each run reads the
 * block height once and each distinct blockhash's validity once, instead of two RPC calls per
 * settlement. A settlement only joins a run that has not started, so its height was read after
 * it arrived, hence after its blockhash was issued: height + lifetime still bounds the last valid
 * height. Validity is never cached: a blockhash may expire between two runs.
 */
export function createBlockhashWindowReader(ledger: Ledger): BlockhashWindowReader {
  return createBatcher(async (blockhashes: readonly string[]): Promise<readonly BlockhashWindow[]> => {
    const distinct = [...new Set(blockhashes)];
    let height: bigint;
    let valid: boolean[];
    try {
      [height, ...valid] = await Promise.all([ledger.getBlockHeight(), ...distinct.map((blockhash) => ledger.isBlockhashValid(blockhash))]);
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      return blockhashes.map(() => ({ kind: "unavailable", error: error.message }) as const);
    }
    const validity = new Map(distinct.map((blockhash, index) => [blockhash, valid[index] === true]));
    return blockhashes.map((blockhash) =>
      validity.get(blockhash) ? { kind: "valid", lastValidBlockHeight: height + BLOCKHASH_LIFETIME_BLOCKS } : { kind: "expired" },
    );
  }, { maxBatch: MAX_BLOCKHASHES_PER_RUN });
}

/** Settlements per run; in practice they carry a handful of distinct blockhashes. */
const MAX_BLOCKHASHES_PER_RUN = 256;
