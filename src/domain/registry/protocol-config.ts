import { anchorAccount, type LayoutValue } from "./anchor-layout.ts";
import { bool, pubkey, u16, u64, u8 } from "./borsh-codecs.ts";

/** The registry program's singleton `ProtocolConfig` account (PDA `["config"]`), fields in IDL order. */
const protocolConfig = anchorAccount("ProtocolConfig", {
  authority: pubkey, collection: pubkey,
  /** Lamports charged by register_agent. */ registrationFee: u64,
  settlementFeeBps: u16, feeTreasury: pubkey, facilitator: pubkey,
  pauseIdentity: bool, pauseReputation: bool, pauseValidation: bool, pauseDelegation: bool, pausePayments: bool,
  bump: u8,
});
export type ProtocolConfig = LayoutValue<typeof protocolConfig>;
export const { discriminator: PROTOCOL_CONFIG_DISCRIMINATOR, encode: encodeProtocolConfig, decode: decodeProtocolConfig } = protocolConfig;
