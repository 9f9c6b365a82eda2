import {
  getAddressCodec,
  getArrayCodec,
  getBooleanCodec,
  getI64Codec,
  getNullableCodec,
  getStructCodec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { anchorAccountCodec, type DecodeResult } from "../registry/decode-result.ts";

/** `account:Delegation` discriminator from the registry IDL (sha256 prefix; checked by a test). */
export const DELEGATION_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([237, 90, 140, 159, 124, 255, 243, 80]);

/** The registry program's `Delegation` account, fields in IDL order. */
export type Delegation = Readonly<{
  /** The agent's `delegation_count` at creation; the last PDA seed. */
  delegationId: bigint;
  delegator: Address;
  delegate: Address;
  nftMint: Address;
  /** The agent's owner_version at creation; a changed owner invalidates the delegation. */
  ownerVersion: bigint;
  canTransact: boolean;
  canGiveFeedback: boolean;
  canUpdateMetadata: boolean;
  canUpdatePricing: boolean;
  canRegisterServices: boolean;
  canManage: boolean;
  canRedelegate: boolean;
  /** 0 = no limit. */
  maxSpendPerTx: bigint;
  /** 0 = no limit. */
  maxSpendTotal: bigint;
  spentTotal: bigint;
  /** Empty = every mint. */
  allowedTokens: Address[];
  /** Empty = every program. */
  allowedPrograms: Address[];
  /** Unix seconds; 0 = never. */
  expiresAt: bigint;
  /** 0 = unlimited. */
  usesRemaining: bigint;
  totalUses: bigint;
  active: boolean;
  parentDelegation: Address | null;
  depth: number;
  /** Unix seconds. */
  createdAt: bigint;
  /** Unix seconds; set once revoked. */
  revokedAt: bigint | null;
  bump: number;
}>;

function getDelegationFieldsCodec() {
  const pubkeyVec = () => getArrayCodec(getAddressCodec(), { size: getU32Codec() });
  return getStructCodec([
    ["delegationId", getU64Codec()],
    ["delegator", getAddressCodec()],
    ["delegate", getAddressCodec()],
    ["nftMint", getAddressCodec()],
    ["ownerVersion", getU64Codec()],
    ["canTransact", getBooleanCodec()],
    ["canGiveFeedback", getBooleanCodec()],
    ["canUpdateMetadata", getBooleanCodec()],
    ["canUpdatePricing", getBooleanCodec()],
    ["canRegisterServices", getBooleanCodec()],
    ["canManage", getBooleanCodec()],
    ["canRedelegate", getBooleanCodec()],
    ["maxSpendPerTx", getU64Codec()],
    ["maxSpendTotal", getU64Codec()],
    ["spentTotal", getU64Codec()],
    ["allowedTokens", pubkeyVec()],
    ["allowedPrograms", pubkeyVec()],
    ["expiresAt", getI64Codec()],
    ["usesRemaining", getU64Codec()],
    ["totalUses", getU64Codec()],
    ["active", getBooleanCodec()],
    ["parentDelegation", getNullableCodec(getAddressCodec())],
    ["depth", getU8Codec()],
    ["createdAt", getI64Codec()],
    ["revokedAt", getNullableCodec(getI64Codec())],
    ["bump", getU8Codec()],
  ]);
}

const account = anchorAccountCodec(DELEGATION_DISCRIMINATOR, getDelegationFieldsCodec);

/** Discriminator + Borsh fields. Decoding ignores trailing padding and never throws. */
export const getDelegationCodec: () => Codec<Delegation> = account.codec;
export const encodeDelegation: (value: Delegation) => Uint8Array = account.encode;
export const decodeDelegation: (data: ReadonlyUint8Array) => DecodeResult<Delegation> = account.decode;
