import {
  getArrayCodec,
  getBooleanCodec,
  getI64Codec,
  getStructCodec,
  getU32Codec,
  getU8Codec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getBorshStringCodec, getBytes32Codec, getSharedU64Codec } from "./borsh-codecs.ts";
import { getFastAddressCodec } from "./fast-address-codec.ts";
import { anchorAccountCodec, type DecodeResult } from "./decode-result.ts";

/** `account:AgentIdentity` discriminator from the registry IDL. */
export const AGENT_IDENTITY_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([11, 149, 31, 27, 186, 76, 241, 72]);

/** Byte offset of `owner`: discriminator (8) + nft_mint (32). Used for owner memcmp filters. */
export const AGENT_OWNER_OFFSET = 40;

/** Byte offset of `nft_mint`, right after the discriminator. */
export const AGENT_NFT_MINT_OFFSET = 8;

/** The registry program's `AgentIdentity` account, fields in IDL order. */
export type AgentIdentity = Readonly<{
  nftMint: Address;
  owner: Address;
  ownerVersion: bigint;
  feedbackAuthority: Address;
  metadataUri: string;
  metadataHash: ReadonlyUint8Array;
  tags: ReadonlyUint8Array[];
  active: boolean;
  /** Unix seconds. */
  createdAt: bigint;
  /** Unix seconds. */
  updatedAt: bigint;
  verifiedFeedbackCount: bigint;
  verifiedScoreSum: bigint;
  unverifiedFeedbackCount: bigint;
  unverifiedScoreSum: bigint;
  validationCount: bigint;
  delegationCount: bigint;
  bump: number;
}>;

function getAgentIdentityFieldsCodec() {
  return getStructCodec([
    ["nftMint", getFastAddressCodec()],
    ["owner", getFastAddressCodec()],
    ["ownerVersion", getSharedU64Codec()],
    ["feedbackAuthority", getFastAddressCodec()],
    ["metadataUri", getBorshStringCodec()],
    ["metadataHash", getBytes32Codec()],
    ["tags", getArrayCodec(getBytes32Codec(), { size: getU32Codec() })],
    ["active", getBooleanCodec()],
    ["createdAt", getI64Codec()],
    ["updatedAt", getI64Codec()],
    ["verifiedFeedbackCount", getSharedU64Codec()],
    ["verifiedScoreSum", getSharedU64Codec()],
    ["unverifiedFeedbackCount", getSharedU64Codec()],
    ["unverifiedScoreSum", getSharedU64Codec()],
    ["validationCount", getSharedU64Codec()],
    ["delegationCount", getSharedU64Codec()],
    ["bump", getU8Codec()],
  ]);
}

const account = anchorAccountCodec(AGENT_IDENTITY_DISCRIMINATOR, getAgentIdentityFieldsCodec);

/** Discriminator + Borsh fields. Decoding ignores trailing padding and never throws. */
export const getAgentIdentityCodec: () => Codec<AgentIdentity> = account.codec;
export const encodeAgentIdentity: (value: AgentIdentity) => Uint8Array = account.encode;
export const decodeAgentIdentity: (data: ReadonlyUint8Array) => DecodeResult<AgentIdentity> = account.decode;
