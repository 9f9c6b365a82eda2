import type { Address } from "@solana/kit";
import { decodeMintAccount, type MintView, TOKEN_PROGRAM_ADDRESS } from "../../domain/token/mint-view.ts";
import { type Clock, systemClock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";

/** The accepted assets' mints as the ledger has them, cached per process. */
export type MintReader = Readonly<{
  /** The mint at `address`, or null when no initialized mint of either token program is there. Throws only when the ledger is unreachable. */
  read(address: Address): Promise<MintView | null>;
}>;

/** How long a Token-2022 mint's extensions are trusted: its fee, pause and hook can change. */
export const TOKEN_2022_MINT_TTL_MS = 30_000;

/**
 * Reads each mint once and keeps it: an SPL Token mint for the process's life (its owner and
 * decimals never change and it has no extensions), so an SPL Token payment costs no ledger call
 * here after the first; a Token-2022 mint for TOKEN_2022_MINT_TTL_MS, since its authorities can
 * pause it or change its fee. Concurrent reads of one mint share one call; a missing mint or a
 * failed read is not kept.
 */
export function createMintReader(ledger: Ledger, options: Readonly<{ clock?: Clock; ttlMs?: number }> = {}): MintReader {
  const clock = options.clock ?? systemClock;
  const ttlMs = options.ttlMs ?? TOKEN_2022_MINT_TTL_MS;
  const cache = new Map<Address, Readonly<{ mint: Promise<MintView | null>; until: number }>>();

  function read(address: Address): Promise<MintView | null> {
    const now = clock.now();
    const hit = cache.get(address);
    if (hit && hit.until > now) return hit.mint;
    const mint = ledger.getAccount(address).then(decodeMintAccount);
    const entry = { mint, until: Number.POSITIVE_INFINITY };
    cache.set(address, entry);
    mint.then(
      (view) => {
        if (view === null) cache.delete(address);
        else if (view.tokenProgram !== TOKEN_PROGRAM_ADDRESS) entry.until = clock.now() + ttlMs;
      },
      () => cache.delete(address),
    );
    return mint;
  }

  return Object.freeze({ read });
}

/** A reader over fixed mints, for compositions that know them without a ledger (tests, benches over fakes). */
export function fixedMintReader(mints: readonly MintView[]): MintReader {
  const byAddress = new Map(mints.map((mint) => [mint.address, mint] as const));
  return Object.freeze({ read: async (address: Address) => byAddress.get(address) ?? null });
}
