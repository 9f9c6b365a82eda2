import type { Address } from "@solana/kit";
import { matchesFilters } from "./account-reads.ts";
import type { AccountSnapshot, Logger, ProgramAccountFilter } from "./ports.ts";

/** One program-owned account as a write left it, with the slot of the write and its rent epoch. */
export type ProgramAccountNotice = AccountSnapshot & Readonly<{ slot: bigint; rentEpoch: bigint }>;

export type ProgramAccountListener = (notice: ProgramAccountNotice) => void;

/**
 * Who listens to which program's accounts (programSubscribe). Like a real node, a notice goes out
 * when an account the program owns after the write, and that passes every filter, is written;
 * an account that leaves the program (closed, reassigned) is not notified: subscribers learn of
 * it from their next full read.
 */
export type ProgramSubscriptions = Readonly<{
  /** Returns the unsubscribe function. */
  subscribe(program: Address, filters: readonly ProgramAccountFilter[], listener: ProgramAccountListener): () => void;
  /** Whether anyone listens at all (the ledger reads transactions' accounts eagerly only then). */
  active(): boolean;
  dispatch(account: AccountSnapshot, slot: bigint, rentEpoch: bigint): void;
}>;

type Subscription = Readonly<{ filters: readonly ProgramAccountFilter[]; listener: ProgramAccountListener }>;

export function createProgramSubscriptions(logger: Logger, changed: (active: boolean) => void): ProgramSubscriptions {
  const byProgram = new Map<Address, Set<Subscription>>();
  let count = 0;

  return Object.freeze({
    subscribe(program: Address, filters: readonly ProgramAccountFilter[], listener: ProgramAccountListener) {
      const subscription: Subscription = Object.freeze({ filters: [...filters], listener });
      let set = byProgram.get(program);
      if (!set) byProgram.set(program, (set = new Set()));
      set.add(subscription);
      if (++count === 1) changed(true);
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        set.delete(subscription);
        if (set.size === 0) byProgram.delete(program);
        if (--count === 0) changed(false);
      };
    },
    active: () => count > 0,
    dispatch(account: AccountSnapshot, slot: bigint, rentEpoch: bigint) {
      const set = byProgram.get(account.owner);
      if (!set) return;
      let notice: ProgramAccountNotice | null = null;
      for (const { filters, listener } of set) {
        if (!matchesFilters(account.data, filters)) continue;
        notice ??= Object.freeze({ ...account, slot, rentEpoch });
        try {
          listener(notice);
        } catch (error) {
          // A subscriber's failure must not fail the write that notified it.
          logger.warn("program subscriber failed", { error: error instanceof Error ? error.message : String(error) });
        }
      }
    },
  });
}
