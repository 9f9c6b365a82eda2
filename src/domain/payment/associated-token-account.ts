import type { Address } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";

/**
 * Derives associated token accounts (owner, token program, mint) with a bounded LRU cache. The
 * token program defaults to SPL Token; a Token-2022 mint's accounts live at other addresses.
 * A derivation hashes up to 255 bump candidates and tests each for being off the curve, which is
 * the most expensive step of verifying a payment; payees repeat, so caching pays.
 */
export type AtaDeriver = Readonly<{
  derive(owner: Address, mint: Address, tokenProgram?: Address): Promise<Address>;
  size(): number;
}>;

export function createAtaDeriver(options: Readonly<{ capacity?: number }> = {}): AtaDeriver {
  const capacity = options.capacity ?? 10_000;
  // A Map iterates in insertion order, so deleting and re-inserting on a hit makes it an LRU.
  const cache = new Map<string, Promise<Address>>();

  async function deriveUncached(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
    return ata;
  }

  function derive(owner: Address, mint: Address, tokenProgram: Address = TOKEN_PROGRAM_ADDRESS): Promise<Address> {
    const key = `${owner}:${mint}:${tokenProgram}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const pending = deriveUncached(owner, mint, tokenProgram);
    // A failed derivation (not a valid address) must not stay cached.
    pending.catch(() => cache.delete(key));
    cache.set(key, pending);
    if (cache.size > capacity) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    return pending;
  }

  return Object.freeze({ derive, size: () => cache.size });
}
