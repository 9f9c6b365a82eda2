/**
 * The seeded agents of bench:registry, shared by the bench and its ledger process
 * (registry-ledger-process.ts): real AgentIdentity byte layout with Anchor's padding.
 */
import type { Address } from "@solana/kit";
import { base58Text } from "@x84/solana-wire";
import type { LocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { encodeAgentIdentity, type AgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { categoryHash, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../src/domain/registry/pdas.ts";

export const AGENT_SPACE = 8 + 32 + 32 + 8 + 32 + 204 + 32 + 164 + 1 + 64 + 1;
export const programId = DEFAULT_REGISTRY_PROGRAM_ID;

export function address(label: number, n: number): Address {
  const bytes = new Uint8Array(32);
  bytes[0] = label;
  new DataView(bytes.buffer).setUint32(1, n, true);
  // The fast base58 (kit's goes through BigInt): seeding 100,000 agents spent most of its time here.
  return base58Text(bytes) as Address;
}

const tagBytes = (name: string) => Uint8Array.from(categoryHash(name).match(/../g) ?? [], (h) => parseInt(h, 16));
const TAGS = DEFAULT_CATEGORY_NAMES.map(tagBytes);

export function agent(n: number, version = 0): AgentIdentity {
  return {
    nftMint: address(1, n),
    owner: address(2, n % 500),
    ownerVersion: 1n,
    feedbackAuthority: address(3, n),
    metadataUri: `https://agents.example/${n}/agent-card.json`,
    metadataHash: new Uint8Array(32),
    tags: [TAGS[n % TAGS.length] as Uint8Array, TAGS[(n * 7) % TAGS.length] as Uint8Array],
    active: n % 10 !== 0,
    createdAt: 1_700_000_000n + BigInt(n),
    updatedAt: 1_700_000_000n + BigInt(n % 3000) + BigInt(version) * 10_000n,
    verifiedFeedbackCount: BigInt(n % 7),
    verifiedScoreSum: BigInt((n % 7) * 75),
    unverifiedFeedbackCount: 1n,
    unverifiedScoreSum: 50n,
    validationCount: 0n,
    delegationCount: 0n,
    bump: 255,
  };
}

export function writeAgent(ledger: LocalLedger, n: number, version = 0): void {
  const data = new Uint8Array(AGENT_SPACE);
  data.set(encodeAgentIdentity(agent(n, version)));
  ledger.setAccount(address(9, n), { lamports: 3_000_000n, owner: programId, data });
}

/** Agents `count`.. owned by `owner` (for /users/me), under their own mint and account addresses. */
export function writeOwnedAgents(ledger: LocalLedger, count: number, owner: Address, agents: number): void {
  for (let n = 0; n < count; n++) {
    const data = new Uint8Array(AGENT_SPACE);
    data.set(encodeAgentIdentity({ ...agent(agents + n), nftMint: address(8, n), owner }));
    ledger.setAccount(address(7, n), { lamports: 3_000_000n, owner: programId, data });
  }
}

/** Rewrites every (1/share)-th agent with a newer updated_at. */
export function rewriteShare(ledger: LocalLedger, agents: number, share: number, version: number): void {
  const step = Math.max(1, Math.round(1 / share));
  for (let n = 0; n < agents; n += step) writeAgent(ledger, n, version);
}

/** The registry bench's read scenarios (name, path), shared by bench/registry.ts and bench/registry-allocations.ts. */
export function registryScenarios(secondPageCursor: string): [string, string][] {
  return [
    ["no filter", "/agents"],
    ["limit=100", "/agents?limit=100"],
    ["active=true", "/agents?active=true"],
    ["category=defi", "/agents?category=defi"],
    ["owner", `/agents?owner=${address(2, 42)}`],
    ["q (substring)", "/agents?q=/77"],
    ["combined", `/agents?active=true&category=trading&q=agent-card`],
    ["cursor page 2", `/agents?cursor=${secondPageCursor}`],
    ["detail", `/agents/${address(1, 1234)}`],
  ];
}
