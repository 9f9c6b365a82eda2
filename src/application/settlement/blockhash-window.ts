import { type Ledger, LedgerError } from "../ports/ledger.ts";

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
    if (!(error instanceof LedgerError)) throw error;
    return { kind: "unavailable", error: error.message };
  }
}

/**
 * Settlements arriving together mostly carry the same recent blockhash: they share one read
 * while it is in flight instead of two RPC calls each. The answer is never older than the
 * sharer's own arrival minus one round trip, and the height bound stays valid because the
 * blockhash was issued before the first sharer arrived.
 */
export function createBlockhashWindowReader(ledger: Ledger): BlockhashWindowReader {
  const inFlight = new Map<string, Promise<BlockhashWindow>>();
  return (blockhash) => {
    const shared = inFlight.get(blockhash);
    if (shared) return shared;
    const read = readBlockhashWindow(ledger, blockhash).finally(() => inFlight.delete(blockhash));
    inFlight.set(blockhash, read);
    return read;
  };
}
