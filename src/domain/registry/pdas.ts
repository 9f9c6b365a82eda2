import {
  getAddressEncoder,
  getI64Encoder,
  getProgramDerivedAddress,
  type Address,
  type ProgramDerivedAddress,
} from "@solana/kit";
import { serviceTypeIndex, type ServiceType } from "./agent-service.ts";

/** The deployed registry program on devnet and mainnet. */
export const DEFAULT_REGISTRY_PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** `ProtocolConfig`: seeds `["config"]`. */
export function findConfigPda(programId: Address): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({ programAddress: programId, seeds: [utf8("config")] });
}

/** `AgentIdentity`: seeds `["agent", nft_mint]`. */
export function findAgentPda(programId: Address, nftMint: Address): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: [utf8("agent"), getAddressEncoder().encode(nftMint)],
  });
}

/** `AgentService`: seeds `["service", nft_mint, service_type as u8]`: one service per type and agent. */
export function findServicePda(programId: Address, nftMint: Address, serviceType: ServiceType): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: [utf8("service"), getAddressEncoder().encode(nftMint), new Uint8Array([serviceTypeIndex(serviceType)])],
  });
}

/**
 * `FeedbackEntry`: seeds `["feedback", nft_mint, reviewer, feedback_nonce as i64 LE]`. The program
 * stores the nonce as `created_at` (revoke_feedback derives the PDA from that field).
 */
export function findFeedbackPda(
  programId: Address,
  nftMint: Address,
  reviewer: Address,
  feedbackNonce: bigint,
): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: [utf8("feedback"), getAddressEncoder().encode(nftMint), getAddressEncoder().encode(reviewer), getI64Encoder().encode(feedbackNonce)],
  });
}
