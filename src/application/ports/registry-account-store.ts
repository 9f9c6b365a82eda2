import type { Address } from "@solana/kit";

/** One account's state for the index to keep (the bytes its fields took), or null: the account is gone. */
export type StoredAccount = Readonly<{ address: Address; slot: bigint; data: Uint8Array | null }>;

export type StoredAccountRow = Readonly<{ address: Address; slot: bigint; data: Uint8Array }>;

/**
 * The registry index's accounts, kept in the store so a restart (or a new replica) serves at once
 * and only catches up. Rows are per kind (`agents`, `feedback`, `services`) of one program.
 */
export type RegistryAccountStore = Readonly<{
  /**
   * Hands the stored accounts of `kind` over in pages. Returns when they were last complete (a full
   * read saved to the end), in ms since the epoch, or null when never: then they are not to be served.
   */
  load(kind: string, onPage: (rows: readonly StoredAccountRow[]) => Promise<void>): Promise<number | null>;
  /** Writes each account (or deletes it, data null) unless the store holds it from a later slot. */
  save(kind: string, accounts: readonly StoredAccount[]): Promise<void>;
  /** Every account of a full read started at `atMs` is saved. */
  markComplete(kind: string, atMs: number): Promise<void>;
}>;
