/**
 * What the ledger needs from its host and the shapes it hands back. They are declared here, not
 * imported, so the package depends on no application: a host's own logger, clock and account
 * types fit as long as they have these members (the facilitator's ports do; its adapter,
 * src/infrastructure/ledger/local-ledger.ts, is type-checked against them).
 */
import type { Address } from "@solana/kit";

export type LogFields = Readonly<Record<string, unknown>>;

export type Logger = Readonly<{
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}>;

export const silentLogger: Logger = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/** Wall clock in milliseconds since the Unix epoch; slots and block times follow it. */
export type Clock = Readonly<{ now(): number }>;

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

export type AccountSnapshot = Readonly<{
  address: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
}>;

/** getProgramAccounts filters, with memcmp bytes already decoded. */
export type ProgramAccountFilter =
  | Readonly<{ memcmp: Readonly<{ offset: number; bytes: Uint8Array }> }>
  | Readonly<{ dataSize: number }>;

export type SignatureStatus = Readonly<{
  slot: bigint;
  confirmationStatus: "processed" | "confirmed" | "finalized";
  err: string | null;
}>;
