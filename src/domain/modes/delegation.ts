import { anchorAccount, type LayoutValue } from "../registry/anchor-layout.ts";
import { bool, i64, option, pubkey, u64, u8, vec } from "../registry/borsh-codecs.ts";

/** The registry program's `Delegation` account, fields in IDL order. */
const delegation = anchorAccount("Delegation", {
  /** The agent's `delegation_count` at creation; the last PDA seed. */ delegationId: u64,
  delegator: pubkey, delegate: pubkey, nftMint: pubkey,
  /** The agent's owner_version at creation; a changed owner invalidates the delegation. */ ownerVersion: u64,
  canTransact: bool, canGiveFeedback: bool, canUpdateMetadata: bool, canUpdatePricing: bool,
  canRegisterServices: bool, canManage: bool, canRedelegate: bool,
  /** 0 = no limit. */ maxSpendPerTx: u64,
  /** 0 = no limit. */ maxSpendTotal: u64,
  spentTotal: u64,
  /** Empty = every mint. */ allowedTokens: vec(pubkey),
  /** Empty = every program. */ allowedPrograms: vec(pubkey),
  /** Unix seconds; 0 = never. */ expiresAt: i64,
  /** 0 = unlimited. */ usesRemaining: u64,
  totalUses: u64, active: bool, parentDelegation: option(pubkey), depth: u8,
  /** Unix seconds. */ createdAt: i64,
  /** Unix seconds; set once revoked. */ revokedAt: option(i64),
  bump: u8,
});
export type Delegation = LayoutValue<typeof delegation>;
export const { discriminator: DELEGATION_DISCRIMINATOR, encode: encodeDelegation, decode: decodeDelegation } = delegation;
