import {
  getBooleanCodec,
  getStructCodec,
  getU16Codec,
  getU64Codec,
  getU8Codec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getFastAddressCodec } from "./fast-address-codec.ts";
import { anchorAccountCodec, type DecodeResult } from "./decode-result.ts";

/** `account:ProtocolConfig` discriminator from the registry IDL. */
export const PROTOCOL_CONFIG_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([207, 91, 250, 28, 152, 179, 215, 209]);

/** The registry program's singleton `ProtocolConfig` account (PDA `["config"]`), fields in IDL order. */
export type ProtocolConfig = Readonly<{
  authority: Address;
  collection: Address;
  /** Lamports charged by register_agent. */
  registrationFee: bigint;
  settlementFeeBps: number;
  feeTreasury: Address;
  facilitator: Address;
  pauseIdentity: boolean;
  pauseReputation: boolean;
  pauseValidation: boolean;
  pauseDelegation: boolean;
  pausePayments: boolean;
  bump: number;
}>;

function getProtocolConfigFieldsCodec() {
  return getStructCodec([
    ["authority", getFastAddressCodec()],
    ["collection", getFastAddressCodec()],
    ["registrationFee", getU64Codec()],
    ["settlementFeeBps", getU16Codec()],
    ["feeTreasury", getFastAddressCodec()],
    ["facilitator", getFastAddressCodec()],
    ["pauseIdentity", getBooleanCodec()],
    ["pauseReputation", getBooleanCodec()],
    ["pauseValidation", getBooleanCodec()],
    ["pauseDelegation", getBooleanCodec()],
    ["pausePayments", getBooleanCodec()],
    ["bump", getU8Codec()],
  ]);
}

const account = anchorAccountCodec(PROTOCOL_CONFIG_DISCRIMINATOR, getProtocolConfigFieldsCodec);

/** Discriminator + Borsh fields. Decoding ignores trailing padding and never throws. */
export const getProtocolConfigCodec: () => Codec<ProtocolConfig> = account.codec;
export const encodeProtocolConfig: (value: ProtocolConfig) => Uint8Array = account.encode;
export const decodeProtocolConfig: (data: ReadonlyUint8Array) => DecodeResult<ProtocolConfig> = account.decode;
