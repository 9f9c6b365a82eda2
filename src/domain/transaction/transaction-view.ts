import type { Address, Transaction } from "@solana/kit";

/**
 * A TransferChecked of SPL Token or Token-2022, fully decoded (exactly 4 accounts, 10 data bytes),
 * or Token-2022's TransferCheckedWithFee (the same accounts, 19 data bytes), whose `fee` is the
 * fee the payer states the mint withholds (null for a plain TransferChecked).
 */
export type TransferChecked = Readonly<{
  kind: "transfer-checked";
  /** The token program the instruction calls: it must be the mint's owner. */
  program: Address;
  source: Address;
  mint: Address;
  destination: Address;
  authority: Address;
  amount: bigint;
  decimals: number;
  fee: bigint | null;
}>;

/** What one top-level instruction means, as far as verification cares. */
export type InstructionMeaning =
  | TransferChecked
  /** Any token instruction other than a well-formed TransferChecked (Approve, CloseAccount, ...). */
  | Readonly<{ kind: "token-other"; discriminator: number | null; note: string }>
  | Readonly<{ kind: "compute-unit-limit"; units: number }>
  | Readonly<{ kind: "compute-unit-price"; microLamports: bigint }>
  /** A ComputeBudget instruction that is unknown, malformed or carries accounts. */
  | Readonly<{ kind: "compute-budget-other"; discriminator: number | null }>
  | Readonly<{ kind: "memo"; byteLength: number }>
  | Readonly<{ kind: "other" }>;

export type InspectedInstruction = Readonly<{
  index: number;
  programAddress: Address;
  /** Every account the instruction lists, in order (static accounts only: lookups are refused). */
  accounts: readonly Address[];
  data: Uint8Array;
  meaning: InstructionMeaning;
}>;

export type SignatureSlot = Readonly<{
  address: Address;
  /** The signer's 32 public-key bytes as they appear in the message (what `address` encodes). */
  publicKey: Uint8Array<ArrayBuffer>;
  signature: Uint8Array<ArrayBuffer> | null;
}>;

/**
 * Everything verification needs from a wire transaction, decoded once. `transaction` is
 * kit's own decoded form, kept so settlement can co-sign it without decoding again.
 */
export type TransactionView = Readonly<{
  wire: Uint8Array;
  transaction: Transaction;
  messageBytes: Uint8Array<ArrayBuffer>;
  version: "legacy" | 0;
  feePayer: Address;
  /** One slot per required signer, fee payer first; `signature` null when the slot is all zeros. */
  signatureSlots: readonly SignatureSlot[];
  staticAccounts: readonly Address[];
  /** Address lookup tables the message references (must be empty to pass). */
  lookupTables: readonly Address[];
  instructions: readonly InspectedInstruction[];
  /** The lifetime token: a recent blockhash (durable nonces need the System program, which is refused). */
  recentBlockhash: string;
}>;
