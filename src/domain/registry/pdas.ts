import {
  getAddressEncoder,
  getI64Encoder,
  getProgramDerivedAddress,
  type Address,
  type ProgramDerivedAddress,
} from "@solana/kit";
import { serviceTypeSeed, type ServiceType } from "./agent-service.ts";

/** The deployed registry program on devnet and mainnet. */
export const DEFAULT_REGISTRY_PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;

/** `ProtocolConfig`: seeds `["config"]`. */
export function findConfigPda(programId: Address): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({ programAddress: programId, seeds: ["config"] });
}

/** `AgentIdentity`: seeds `["agent", nft_mint]`. */
export function findAgentPda(programId: Address, nftMint: Address): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ["agent", getAddressEncoder().encode(nftMint)],
  });
}

/**
 * `AgentService`: seeds `["service", nft_mint, service_type seed string]` (`"mcp"`, `"a2a"`, `"api"`,
 * `"web"`), one service per type and agent. The IDL only says "the service_type argument"; the
 * program seeds it with `ServiceType::seed()`, the lowercase name, as the x84 SDK's `findServicePda`
 * does, not with the argument's one Borsh byte.
 */
export function findServicePda(programId: Address, nftMint: Address, serviceType: ServiceType): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ["service", getAddressEncoder().encode(nftMint), serviceTypeSeed(serviceType)],
  });
}

/**
 * `PaymentRequirement`: seeds `["payment_req", nft_mint, service_type seed string]`, like the
 * service (the SDK's `findPaymentReqPda`); one requirement per service type and agent.
 */
export function findPaymentRequirementPda(programId: Address, nftMint: Address, serviceType: ServiceType): Promise<ProgramDerivedAddress> {
  return getProgramDerivedAddress({
    programAddress: programId,
    seeds: ["payment_req", getAddressEncoder().encode(nftMint), serviceTypeSeed(serviceType)],
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
    seeds: ["feedback", getAddressEncoder().encode(nftMint), getAddressEncoder().encode(reviewer), getI64Encoder().encode(feedbackNonce)],
  });
}
