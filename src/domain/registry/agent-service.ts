import { anchorAccount, type LayoutValue } from "./anchor-layout.ts";
import { bool, enumOf, i64, pubkey, string, u8 } from "./borsh-codecs.ts";

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
const agentService = anchorAccount("AgentService", {
  nftMint: pubkey, serviceType: enumOf(SERVICE_TYPES), endpoint: string, version: string, active: bool,
  /** Unix seconds. */ createdAt: i64,
  /** Unix seconds. */ updatedAt: i64,
  bump: u8,
});
export type AgentService = LayoutValue<typeof agentService>;
export const { discriminator: AGENT_SERVICE_DISCRIMINATOR, encode: encodeAgentService, decode: decodeAgentService } = agentService;

