import { getAddressDecoder, type Address } from "@solana/kit";
import type { AgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import type { AgentService, ServiceType } from "../../../src/domain/registry/agent-service.ts";
import type { FeedbackEntry } from "../../../src/domain/registry/feedback-entry.ts";
import { categoryHash } from "../../../src/domain/registry/categories.ts";

export const PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;

/** A deterministic address from a label and a number (not on any curve check; fine for accounts). */
export function testAddress(label: number, n: number): Address {
  const bytes = new Uint8Array(32);
  bytes[0] = label;
  new DataView(bytes.buffer).setUint32(1, n, true);
  bytes[31] = 7;
  return getAddressDecoder().decode(bytes);
}

export function hashBytes(name: string): Uint8Array {
  return Uint8Array.from(Buffer.from(categoryHash(name), "hex"));
}

export function agentIdentity(n: number, overrides: Partial<AgentIdentity> = {}): AgentIdentity {
  return {
    nftMint: testAddress(1, n),
    owner: testAddress(2, n % 4),
    ownerVersion: 1n,
    feedbackAuthority: testAddress(3, n),
    metadataUri: `https://agents.example/${n}/card.json`,
    metadataHash: new Uint8Array(32).fill(n % 256),
    tags: [hashBytes(n % 2 === 0 ? "defi" : "trading")],
    active: true,
    createdAt: 1_700_000_000n + BigInt(n),
    updatedAt: 1_700_000_000n + BigInt(n),
    verifiedFeedbackCount: 0n,
    verifiedScoreSum: 0n,
    unverifiedFeedbackCount: 0n,
    unverifiedScoreSum: 0n,
    validationCount: 0n,
    delegationCount: 0n,
    bump: 255,
    ...overrides,
  };
}

export function feedbackEntry(nftMint: Address, n: number, overrides: Partial<FeedbackEntry> = {}): FeedbackEntry {
  return {
    nftMint,
    reviewer: testAddress(4, n % 3),
    score: (n * 17) % 101,
    tag1: hashBytes("quality"),
    tag2: new Uint8Array(32),
    authVerified: n % 2 === 0,
    hasPaymentProof: n % 2 === 0,
    paymentAmount: n % 2 === 0 ? 1_000_000n * BigInt(n + 1) : 0n,
    paymentToken: n % 2 === 0 ? ("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address) : ("11111111111111111111111111111111" as Address),
    revoked: false,
    createdAt: 1_700_100_000n + BigInt(n),
    bump: 254,
    ...overrides,
  };
}

export function agentService(nftMint: Address, serviceType: ServiceType, overrides: Partial<AgentService> = {}): AgentService {
  return {
    nftMint,
    serviceType,
    endpoint: `https://svc.example/${serviceType}`,
    version: "1.0.0",
    active: true,
    createdAt: 1_700_200_000n,
    updatedAt: 1_700_200_000n,
    bump: 253,
    ...overrides,
  };
}

/** Anchor allocates accounts at their maximum size: trailing zero padding after the fields. */
export function padded(data: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(Math.max(size, data.length));
  out.set(data);
  return out;
}
