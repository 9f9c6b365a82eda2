import { getBase58Decoder } from "@solana/kit";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Clock } from "./ports.ts";

/** Solana's target slot time. */
export const MS_PER_SLOT = 400;
/** A blockhash stays usable for this many blocks after the block that produced it (as on mainnet). */
export const BLOCKHASH_VALIDITY_BLOCKS = 150n;
/** Devnet/mainnet epoch length. */
export const SLOTS_PER_EPOCH = 432_000n;

export type SlotBlockhash = Readonly<{ slot: bigint; blockhash: string; lastValidBlockHeight: bigint }>;

export type SlotClock = Readonly<{
  /** Current slot; also the block height (the embedded ledger never skips a slot). */
  currentSlot(): bigint;
  /** The blockhash of the current slot, with the last block height at which it is still accepted. */
  latest(): SlotBlockhash;
  /** True when `blockhash` was produced by this ledger and has not expired. */
  isValid(blockhash: string): boolean;
  /** Unix seconds of the current slot, for the Clock sysvar and `blockTime`. */
  unixTimestamp(): bigint;
}>;

export type SlotClockOptions = Readonly<{
  clock: Clock;
  /** Slot number at boot, so slots look like a long-running cluster's. */
  firstSlot: bigint;
  /** Secret per ledger instance: blockhashes cannot be predicted or shared between instances. */
  seed: Uint8Array;
}>;

/**
 * Slots advance with the injected clock (400 ms each). Each slot has a deterministic
 * blockhash, base58(sha256(seed || slot_le)). litesvm knows only one blockhash, so the
 * embedded ledger turns its check off and uses this window instead.
 */
export function createSlotClock(options: SlotClockOptions): SlotClock {
  const bootMs = options.clock.now();
  const base58 = getBase58Decoder();
  // Blockhash -> slot, for hashes handed out. A client can only learn a hash from us, so
  // unknown hashes are invalid by construction; expired entries are pruned.
  const issued = new Map<string, bigint>();
  let lastSlot = options.firstSlot;

  function currentSlot(): bigint {
    const elapsed = Math.max(0, Math.floor((options.clock.now() - bootMs) / MS_PER_SLOT));
    const slot = options.firstSlot + BigInt(elapsed);
    // Monotonic even if an injected clock goes backwards.
    if (slot > lastSlot) lastSlot = slot;
    return lastSlot;
  }

  function hashOf(slot: bigint): string {
    const input = new Uint8Array(options.seed.length + 8);
    input.set(options.seed, 0);
    new DataView(input.buffer).setBigUint64(options.seed.length, slot, true);
    return base58.decode(sha256(input));
  }

  function prune(height: bigint): void {
    for (const [hash, slot] of issued) {
      if (slot + BLOCKHASH_VALIDITY_BLOCKS < height) issued.delete(hash);
    }
  }

  function latest(): SlotBlockhash {
    const slot = currentSlot();
    const blockhash = hashOf(slot);
    if (!issued.has(blockhash)) {
      prune(slot);
      issued.set(blockhash, slot);
    }
    return Object.freeze({ slot, blockhash, lastValidBlockHeight: slot + BLOCKHASH_VALIDITY_BLOCKS });
  }

  function isValid(blockhash: string): boolean {
    const slot = issued.get(blockhash);
    if (slot === undefined) return false;
    return currentSlot() <= slot + BLOCKHASH_VALIDITY_BLOCKS;
  }

  function unixTimestamp(): bigint {
    return BigInt(Math.floor(options.clock.now() / 1000));
  }

  return Object.freeze({ currentSlot, latest, isValid, unixTimestamp });
}
