import type { ReadonlyUint8Array } from "@solana/kit";

/** The part of a ledger account the mode checks read (the Ledger port's snapshot fits it). */
export type OwnedAccount = Readonly<{ address: string; owner: string; data: ReadonlyUint8Array }>;
