import {
  getBooleanCodec,
  getConstantCodec,
  getHiddenPrefixCodec,
  getStructCodec,
  getU16Codec,
  getU64Codec,
  getU8Codec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getFastAddressCodec } from "./fast-address-codec.ts";
import { decodeAccountData, type DecodeResult } from "./decode-result.ts";

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

let cachedCodec: Codec<ProtocolConfig> | undefined;

export function getProtocolConfigCodec(): Codec<ProtocolConfig> {
  cachedCodec ??= getHiddenPrefixCodec(getProtocolConfigFieldsCodec(), [getConstantCodec(PROTOCOL_CONFIG_DISCRIMINATOR)]);
  return cachedCodec;
}

export function encodeProtocolConfig(config: ProtocolConfig): Uint8Array {
  return new Uint8Array(getProtocolConfigCodec().encode(config));
}

export function decodeProtocolConfig(data: ReadonlyUint8Array): DecodeResult<ProtocolConfig> {
  return decodeAccountData(getProtocolConfigCodec(), PROTOCOL_CONFIG_DISCRIMINATOR, data);
}
