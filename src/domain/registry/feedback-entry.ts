import {
  getBooleanCodec,
  getI64Codec,
  getStructCodec,
  getU64Codec,
  getU8Codec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getBytes32Codec } from "./borsh-codecs.ts";
import { getFastAddressCodec } from "./fast-address-codec.ts";
import { anchorAccountCodec, type DecodeResult } from "./decode-result.ts";

/** `account:FeedbackEntry` discriminator from the registry IDL. */
export const FEEDBACK_ENTRY_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([203, 62, 143, 114, 243, 30, 218, 29]);

/** Byte offset of `nft_mint` (the agent that received the feedback). */
export const FEEDBACK_NFT_MINT_OFFSET = 8;

/** The registry program's `FeedbackEntry` account, fields in IDL order. */
export type FeedbackEntry = Readonly<{
  nftMint: Address;
  reviewer: Address;
  /** 0..100 */
  score: number;
  tag1: ReadonlyUint8Array;
  tag2: ReadonlyUint8Array;
  authVerified: boolean;
  hasPaymentProof: boolean;
  paymentAmount: bigint;
  paymentToken: Address;
  revoked: boolean;
  /** Unix seconds; also the `feedback_nonce` seed of the entry's PDA. */
  createdAt: bigint;
  bump: number;
}>;

function getFeedbackEntryFieldsCodec() {
  return getStructCodec([
    ["nftMint", getFastAddressCodec()],
    ["reviewer", getFastAddressCodec()],
    ["score", getU8Codec()],
    ["tag1", getBytes32Codec()],
    ["tag2", getBytes32Codec()],
    ["authVerified", getBooleanCodec()],
    ["hasPaymentProof", getBooleanCodec()],
    ["paymentAmount", getU64Codec()],
    ["paymentToken", getFastAddressCodec()],
    ["revoked", getBooleanCodec()],
    ["createdAt", getI64Codec()],
    ["bump", getU8Codec()],
  ]);
}

const account = anchorAccountCodec(FEEDBACK_ENTRY_DISCRIMINATOR, getFeedbackEntryFieldsCodec);

/** Discriminator + Borsh fields. Decoding ignores trailing padding and never throws. */
export const getFeedbackEntryCodec: () => Codec<FeedbackEntry> = account.codec;
export const encodeFeedbackEntry: (value: FeedbackEntry) => Uint8Array = account.encode;
export const decodeFeedbackEntry: (data: ReadonlyUint8Array) => DecodeResult<FeedbackEntry> = account.decode;
