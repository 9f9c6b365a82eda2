import { anchorAccount, type LayoutValue } from "./anchor-layout.ts";
import { bool, bytes32, i64, pubkey, u64, u8 } from "./borsh-codecs.ts";

/** The registry program's `FeedbackEntry` account, fields in IDL order. */
const feedbackEntry = anchorAccount("FeedbackEntry", {
  nftMint: pubkey, reviewer: pubkey,
  /** 0..100 */ score: u8,
  tag1: bytes32, tag2: bytes32, authVerified: bool, hasPaymentProof: bool, paymentAmount: u64, paymentToken: pubkey, revoked: bool,
  /** Unix seconds; also the `feedback_nonce` seed of the entry's PDA. */ createdAt: i64,
  bump: u8,
});
export type FeedbackEntry = LayoutValue<typeof feedbackEntry>;
export const { discriminator: FEEDBACK_ENTRY_DISCRIMINATOR, encode: encodeFeedbackEntry, decode: decodeFeedbackEntry } = feedbackEntry;

