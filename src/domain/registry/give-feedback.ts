import type { Address, ReadonlyUint8Array } from "@solana/kit";
import { anchorInstruction, type LayoutValue } from "./anchor-layout.ts";
import { bytes32, bytes64, i64, string, u8 } from "./borsh-codecs.ts";

/** The instruction's arguments, in IDL order. Only `detailUri` is not kept in the FeedbackEntry account. */
const giveFeedback = anchorInstruction("give_feedback", {
  score: u8, tag1: bytes32, tag2: bytes32, detailUri: string, detailHash: bytes32,
  /** `[u8; 64]`: the feedback authority's ed25519 signature. */ feedbackAuth: bytes64,
  /** Seed of the entry's PDA; the program stores it as `created_at`. */ feedbackNonce: i64,
});
export type GiveFeedbackArgs = LayoutValue<typeof giveFeedback>;
/** Discriminator, then the Borsh arguments. */
export const { discriminator: GIVE_FEEDBACK_DISCRIMINATOR, encode: encodeGiveFeedbackData } = giveFeedback;

/**
 * Account slots of give_feedback, in IDL order. Anchor passes the program id in the slot of an
 * absent optional account (`payment_receipt`), so the indexes never shift.
 */
export const GIVE_FEEDBACK_ACCOUNT_INDEX = Object.freeze({
  reviewer: 0,
  config: 1,
  agent: 2,
  nftMint: 3,
  feedbackEntry: 4,
  paymentReceipt: 5,
  instructionsSysvar: 6,
  systemProgram: 7,
});

/**
 * The arguments of give_feedback instruction data; null when the bytes are something else or do
 * not decode. Trailing bytes are allowed, as Anchor's argument deserialisation allows them.
 */
export function decodeGiveFeedbackData(data: ReadonlyUint8Array): GiveFeedbackArgs | null {
  const decoded = giveFeedback.decode(data);
  return decoded.ok ? decoded.value : null;
}

/** One instruction of a landed transaction (top level or inner), accounts resolved to addresses. */
export type LandedInstruction = Readonly<{
  programAddress: Address;
  accounts: readonly Address[];
  data: ReadonlyUint8Array;
}>;

/** What a ledger says of one landed transaction: its error (null = succeeded) and every instruction. */
export type LandedTransaction = Readonly<{
  err: string | null;
  instructions: readonly LandedInstruction[];
}>;

/** The entry whose creation is looked for: its PDA and the two seeds the account repeats. */
export type FeedbackEntryRef = Readonly<{ address: Address; nftMint: Address; reviewer: Address }>;

/**
 * What the creating give_feedback tells beyond the account: its arguments, and the PaymentReceipt it
 * consumed as payment proof (null when the optional slot held the program id, Anchor's "absent").
 * The program verifies that receipt and closes it in the same transaction, so this address is all
 * that is left of the proof once the entry exists.
 */
export type FeedbackCreation = Readonly<{ args: GiveFeedbackArgs; paymentReceipt: Address | null }>;

/**
 * The give_feedback that created `entry` inside `transaction`, or null.
 *
 * SECURITY: anyone can put the entry's address into a transaction of their own (getSignaturesForAddress
 * lists it) with data that looks like give_feedback, or send a real give_feedback that fails. Only a
 * give_feedback of the registry program, in a transaction that succeeded, with the entry in its
 * `feedback_entry` slot can have created the account: the program inits that account at the PDA of
 * the instruction's own reviewer, mint and nonce, so such an instruction carries the entry's real
 * arguments. Reviewer and mint slots are checked against the account as well.
 */
export function feedbackCreationIn(transaction: LandedTransaction, programId: Address, entry: FeedbackEntryRef): FeedbackCreation | null {
  if (transaction.err !== null) return null;
  for (const instruction of transaction.instructions) {
    if (instruction.programAddress !== programId) continue;
    const { accounts } = instruction;
    if (
      accounts[GIVE_FEEDBACK_ACCOUNT_INDEX.feedbackEntry] !== entry.address ||
      accounts[GIVE_FEEDBACK_ACCOUNT_INDEX.reviewer] !== entry.reviewer ||
      accounts[GIVE_FEEDBACK_ACCOUNT_INDEX.nftMint] !== entry.nftMint
    ) {
      continue;
    }
    const args = decodeGiveFeedbackData(instruction.data);
    if (args) return { args, paymentReceipt: paymentReceiptIn(accounts, programId) };
  }
  return null;
}

/** The payment_receipt slot: the program id (or a short account list) means none was passed. */
function paymentReceiptIn(accounts: readonly Address[], programId: Address): Address | null {
  const receipt = accounts[GIVE_FEEDBACK_ACCOUNT_INDEX.paymentReceipt];
  return receipt === undefined || receipt === programId ? null : receipt;
}
