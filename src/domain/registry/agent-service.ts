import {
  getBooleanCodec,
  getI64Codec,
  getLiteralUnionCodec,
  getStructCodec,
  getU8Codec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getBorshStringCodec } from "./borsh-codecs.ts";
import { getFastAddressCodec } from "./fast-address-codec.ts";
import { anchorAccountCodec, type DecodeResult } from "./decode-result.ts";

/** `account:AgentService` discriminator from the registry IDL. */
export const AGENT_SERVICE_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([27, 120, 44, 60, 134, 122, 164, 136]);

/** Byte offset of `nft_mint` (the parent agent). */
export const SERVICE_NFT_MINT_OFFSET = 8;

/** The IDL's `ServiceType` enum (MCP, A2A, API, Web) in variant order; account data stores the index as a u8. */
export const SERVICE_TYPES = ["mcp", "a2a", "api", "web"] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

export function isServiceType(value: string): value is ServiceType {
  return (SERVICE_TYPES as readonly string[]).includes(value);
}

/**
 * The PDA seed of a service type (`ServiceType::seed()` on chain, `serviceTypeToSeed` in the x84
 * SDK): its lowercase name as UTF-8, not its Borsh index.
 */
export function serviceTypeSeed(type: ServiceType): string {
  return type;
}

/** The registry program's `AgentService` account, fields in IDL order. */
export type AgentService = Readonly<{
  nftMint: Address;
  serviceType: ServiceType;
  endpoint: string;
  version: string;
  active: boolean;
  /** Unix seconds. */
  createdAt: bigint;
  /** Unix seconds. */
  updatedAt: bigint;
  bump: number;
}>;

function getAgentServiceFieldsCodec() {
  return getStructCodec([
    ["nftMint", getFastAddressCodec()],
    ["serviceType", getLiteralUnionCodec(SERVICE_TYPES)],
    ["endpoint", getBorshStringCodec()],
    ["version", getBorshStringCodec()],
    ["active", getBooleanCodec()],
    ["createdAt", getI64Codec()],
    ["updatedAt", getI64Codec()],
    ["bump", getU8Codec()],
  ]);
}

const account = anchorAccountCodec(AGENT_SERVICE_DISCRIMINATOR, getAgentServiceFieldsCodec);

/** Discriminator + Borsh fields. Decoding ignores trailing padding and never throws. */
export const getAgentServiceCodec: () => Codec<AgentService> = account.codec;
export const encodeAgentService: (value: AgentService) => Uint8Array = account.encode;
export const decodeAgentService: (data: ReadonlyUint8Array) => DecodeResult<AgentService> = account.decode;
