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
  /**
   * Deletes the stored accounts of `kind` that `keep` refuses, unless stored from a slot after
   * `slot` (a full read at `slot` did not return them: they were gone). Returns how many went.
   */
  sweep(kind: string, keep: (address: Address) => boolean, slot: bigint): Promise<number>;
  /**
   * Starts writing a new snapshot of `kind` (a built index in opaque chunks): its chunks are put as
   * they are encoded, then `commit` makes it the snapshot unless the store holds one from a later
   * slot (false then, and its chunks go). Only the elected writer calls it.
   */
  beginSnapshot?(kind: string): Promise<RegistrySnapshotWrite>;
  /**
   * Hands the chunks of the latest snapshot of `kind` over in order (the next page is fetched
   * while `onChunks` works); null when there is none. Throws when it changed under the read.
   */
  loadSnapshot?(kind: string, onChunks: (chunks: readonly Uint8Array[]) => Promise<void>): Promise<RegistrySnapshotHead | null>;
  /**
   * Hands over, in pages, the stored accounts of `kind` whose bytes changed since `takenAt` (a
   * snapshot head's), then those closed since (data null) and not stored again.
   */
  loadSince?(kind: string, takenAt: string, onPage: (rows: readonly StoredAccount[]) => Promise<void>): Promise<void>;
}>;

export type RegistrySnapshotWrite = Readonly<{
  put(chunks: readonly Uint8Array[]): Promise<void>;
  commit(slot: bigint): Promise<boolean>;
  /** Drops what was put (the encoding failed or the writer stops). */
  abort(): Promise<void>;
}>;

/**
 * A snapshot's head: the highest slot of its accounts, the store's clock when it was taken (opaque
 * text, for loadSince), how many chunks.
 */
export type RegistrySnapshotHead = Readonly<{ slot: bigint; takenAt: string; chunks: number }>;

/**
 * Which replica writes the index to the store: one per program at a time. Every replica follows
 * the ledger and serves from its own memory; only the elected one writes, so N replicas do not
 * write every change N times nor race each other's deletions. The others load from the store at
 * start-up and catch up from the ledger.
 */
export type RegistryIndexWriterElection = Readonly<{
  /**
   * Tries to be, or stay, the writer: the store to write through while this replica is (writes
   * go through the session that holds the role, so a replica that lost it cannot write), else null.
   * `elected`: true when the role was (re)taken by this call, and what the previous writer left
   * must be made whole.
   */
  acquire(): Promise<Readonly<{ store: RegistryAccountStore; elected: boolean }> | null>;
  /** Gives the role up (shutdown), so another replica can take it at its next try. */
  release(): Promise<void>;
}>;
