import type { Address } from "@solana/kit";
import type { ProgramAccountFilter } from "./ledger.ts";

/** One write of a program-owned account, as the node pushed it; `slot` is the slot it was written in. */
export type ProgramAccountChange = Readonly<{
  address: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
  slot: bigint;
}>;

export type ProgramFeedHandlers = Readonly<{
  change(change: ProgramAccountChange): void;
  /**
   * `live`: the subscription is confirmed, changes from now on arrive (again after each reconnect:
   * what happened while it was down is not replayed, so the subscriber reads everything once).
   * `lost`: the connection dropped; a reconnect is under way. `detail` never holds URLs or secrets.
   */
  status(status: "live" | "lost", detail?: string): void;
}>;

export type ProgramFeedSubscription = Readonly<{ close(): void }>;

/**
 * Writes of a program's accounts as they happen (Solana's `programSubscribe`). Like the node's, it
 * tells of every write of an account the program owns after the write and that passes every filter;
 * an account that is closed or leaves the program is not told of (a full read finds it gone).
 */
export type ProgramAccountFeed = Readonly<{
  subscribe(program: Address, filters: readonly ProgramAccountFilter[], handlers: ProgramFeedHandlers): ProgramFeedSubscription;
}>;
