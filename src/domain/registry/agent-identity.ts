import { anchorAccount, type LayoutValue } from "./anchor-layout.ts";
import { bool, bytes32, i64, pubkey, string, u64, u8, vec } from "./borsh-codecs.ts";

/** The registry program's `AgentIdentity` account, fields in IDL order. */
const agentIdentity = anchorAccount("AgentIdentity", {
  nftMint: pubkey, owner: pubkey, ownerVersion: u64, feedbackAuthority: pubkey,
  metadataUri: string, metadataHash: bytes32, tags: vec(bytes32), active: bool,
  /** Unix seconds. */ createdAt: i64,
  /** Unix seconds. */ updatedAt: i64,
  verifiedFeedbackCount: u64, verifiedScoreSum: u64, unverifiedFeedbackCount: u64, unverifiedScoreSum: u64,
  validationCount: u64, delegationCount: u64, bump: u8,
});
export type AgentIdentity = LayoutValue<typeof agentIdentity>;
export const { discriminator: AGENT_IDENTITY_DISCRIMINATOR, encode: encodeAgentIdentity, decode: decodeAgentIdentity } = agentIdentity;


/** Byte offset of `owner`: discriminator (8) + nft_mint (32). Used for owner memcmp filters. */
export const AGENT_OWNER_OFFSET = 40;
