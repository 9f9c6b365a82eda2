/**
 * Builds the sample registry (sample-agent-catalog.ts) as the registry program's own accounts:
 * AgentIdentity, AgentService and FeedbackEntry encoded with the project's codecs (the IDL's
 * layouts), at the PDAs pdas.ts derives, padded to the size the program allocates.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { createKeyPairSignerFromPrivateKeyBytes, type Address } from "@solana/kit";
import { encodeAgentIdentity, type AgentIdentity } from "../../../domain/registry/agent-identity.ts";
import { encodeAgentService, type AgentService } from "../../../domain/registry/agent-service.ts";
import { categoryHash } from "../../../domain/registry/categories.ts";
import { encodeFeedbackEntry, type FeedbackEntry } from "../../../domain/registry/feedback-entry.ts";
import { findAgentPda, findFeedbackPda, findServicePda } from "../../../domain/registry/pdas.ts";
import {
  PAYABLE_SAMPLE_HOST,
  SAMPLE_AGENTS,
  SAMPLE_KEY_SEED,
  SAMPLE_REVIEWER_COUNT,
  type SampleAgent,
  type SampleFeedback,
} from "./sample-agent-catalog.ts";

/**
 * Account sizes the program allocates (Anchor `InitSpace`, maxima from the IDL's docs): strings at
 * their maximum (metadata_uri and endpoint 200, version 20), tags at 5. Unused bytes stay zero.
 */
const AGENT_IDENTITY_SPACE = 8 + 32 + 32 + 8 + 32 + (4 + 200) + 32 + (4 + 5 * 32) + 1 + 8 + 8 + 6 * 8 + 1;
const AGENT_SERVICE_SPACE = 8 + 32 + 1 + (4 + 200) + (4 + 20) + 1 + 8 + 8 + 1;

/** `Pubkey::default()`: the payment token of feedback without payment proof. */
const NO_TOKEN = "11111111111111111111111111111111" as Address;
const NO_TAG = new Uint8Array(32);

export type SampleAccount = Readonly<{ address: Address; data: Uint8Array }>;

export type BuiltSampleAgent = Readonly<{
  slug: string;
  name: string;
  nftMint: Address;
  /** The agent PDA `["agent", nftMint]`. */
  address: Address;
  owner: Address;
  metadataUri: string;
  categories: readonly string[];
  active: boolean;
  /** The USDC the owner holds: what its verified feedback says it was paid (payable agent only). */
  ownerUsdc: bigint | null;
}>;

export type SampleRegistry = Readonly<{
  agents: readonly BuiltSampleAgent[];
  accounts: readonly SampleAccount[];
  /** The one agent whose owner is a funded merchant (PAYABLE_SAMPLE_HOST). */
  payable: BuiltSampleAgent;
}>;

const built = new Map<string, Promise<SampleRegistry>>();

/**
 * The sample accounts for a program id and payment mint. Deterministic; computed once per
 * process (every service a test builds seeds the same bytes).
 */
export function buildSampleRegistry(programId: Address, usdcMint: Address): Promise<SampleRegistry> {
  const key = `${programId}/${usdcMint}`;
  let registry = built.get(key);
  if (!registry) {
    registry = buildRegistry(programId, usdcMint);
    built.set(key, registry);
    registry.catch(() => built.delete(key));
  }
  return registry;
}

async function buildRegistry(programId: Address, usdcMint: Address): Promise<SampleRegistry> {
  const reviewers = await Promise.all(Array.from({ length: SAMPLE_REVIEWER_COUNT }, (_, i) => sampleAddress(`reviewer/${i}`)));
  const results = await Promise.all(SAMPLE_AGENTS.map((agent) => buildAgent(programId, usdcMint, agent, reviewers)));
  const payable = results.find((r) => r.agent.ownerUsdc !== null)?.agent;
  if (!payable) throw new Error("the sample catalog has no payable agent");
  return Object.freeze({
    agents: Object.freeze(results.map((r) => r.agent)),
    accounts: Object.freeze(results.flatMap((r) => r.accounts)),
    payable,
  });
}

async function buildAgent(
  programId: Address,
  usdcMint: Address,
  spec: SampleAgent,
  reviewers: readonly Address[],
): Promise<{ agent: BuiltSampleAgent; accounts: SampleAccount[] }> {
  const [nftMint, owner] = await Promise.all([sampleAddress(`${spec.slug}/asset`), sampleAddress(`${spec.slug}/owner`)]);
  const origin = `https://${hostOf(spec)}`;
  const metadataUri = `${origin}/.well-known/agent-card.json`;
  const createdAt = unixSeconds(spec.createdAt);
  const feedback = spec.feedback.map((entry) => feedbackEntry(nftMint, entry, reviewerOf(reviewers, entry), spec, usdcMint));
  const verified = feedback.filter((f) => f.hasPaymentProof);
  const unverified = feedback.filter((f) => !f.hasPaymentProof);
  const [agentPda, agentBump] = await findAgentPda(programId, nftMint);

  const identity: AgentIdentity = {
    nftMint,
    owner,
    ownerVersion: 0n,
    feedbackAuthority: owner,
    metadataUri,
    metadataHash: sha256(new TextEncoder().encode(agentCard(spec, origin))),
    tags: spec.categories.map(tagBytes),
    active: spec.active ?? true,
    createdAt,
    // give_feedback writes the agent (its counters): the last feedback is its last update.
    updatedAt: feedback.reduce((latest, f) => (f.createdAt > latest ? f.createdAt : latest), createdAt),
    verifiedFeedbackCount: BigInt(verified.length),
    verifiedScoreSum: sumOf(verified.map((f) => BigInt(f.score))),
    unverifiedFeedbackCount: BigInt(unverified.length),
    unverifiedScoreSum: sumOf(unverified.map((f) => BigInt(f.score))),
    validationCount: 0n,
    delegationCount: 0n,
    bump: agentBump,
  };
  const accounts: SampleAccount[] = [{ address: agentPda, data: padded(encodeAgentIdentity(identity), AGENT_IDENTITY_SPACE) }];

  for (const [i, service] of spec.services.entries()) {
    const [address, bump] = await findServicePda(programId, nftMint, service.type);
    // Services were added one after another, a day apart, after the agent was registered.
    const at = createdAt + BigInt(i + 1) * 86_400n;
    const account: AgentService = {
      nftMint,
      serviceType: service.type,
      endpoint: `${origin}${service.path}`,
      version: service.version,
      active: service.active ?? true,
      createdAt: at,
      updatedAt: at,
      bump,
    };
    accounts.push({ address, data: padded(encodeAgentService(account), AGENT_SERVICE_SPACE) });
  }
  for (const entry of feedback) {
    const [address, bump] = await findFeedbackPda(programId, nftMint, entry.reviewer, entry.createdAt);
    accounts.push({ address, data: encodeFeedbackEntry({ ...entry, bump }) });
  }

  const agent: BuiltSampleAgent = Object.freeze({
    slug: spec.slug,
    name: spec.name,
    nftMint,
    address: agentPda,
    owner,
    metadataUri,
    categories: spec.categories,
    active: identity.active,
    ownerUsdc: spec.payable ? sumOf(verified.map((f) => f.paymentAmount)) : null,
  });
  return { agent, accounts };
}

function feedbackEntry(nftMint: Address, entry: SampleFeedback, reviewer: Address, agent: SampleAgent, usdcMint: Address): FeedbackEntry {
  const paid = entry.paid !== undefined;
  return {
    nftMint,
    reviewer,
    score: entry.score,
    tag1: tagBytes(agent.categories[0] ?? ""),
    tag2: NO_TAG,
    authVerified: paid,
    hasPaymentProof: paid,
    paymentAmount: entry.paid ?? 0n,
    paymentToken: paid ? usdcMint : NO_TOKEN,
    revoked: false,
    createdAt: unixSeconds(entry.at),
    bump: 0,
  };
}

/** The registration file its metadataUri would serve (A2A agent card shape); only its hash is on chain. */
function agentCard(agent: SampleAgent, origin: string): string {
  return JSON.stringify({
    name: agent.name,
    description: agent.description,
    url: `${origin}/a2a`,
    services: agent.services.map((s) => ({ type: s.type, endpoint: `${origin}${s.path}`, version: s.version })),
  });
}

function hostOf(agent: SampleAgent): string {
  return agent.payable ? PAYABLE_SAMPLE_HOST : `${agent.slug}.example.com`;
}

/** A wallet-like (on-curve) address whose key anyone can derive: for the embedded ledger only. */
async function sampleAddress(label: string): Promise<Address> {
  const seed = sha256(new TextEncoder().encode(`${SAMPLE_KEY_SEED}/${label}`));
  return (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
}

function reviewerOf(reviewers: readonly Address[], entry: SampleFeedback): Address {
  const reviewer = reviewers[entry.reviewer];
  if (!reviewer) throw new Error(`sample feedback names reviewer ${entry.reviewer}, there are ${reviewers.length}`);
  return reviewer;
}

const tagBytes = (name: string): Uint8Array => hexToBytes(categoryHash(name));
const unixSeconds = (iso: string): bigint => BigInt(Date.parse(iso) / 1000);
const sumOf = (values: readonly bigint[]): bigint => values.reduce((a, b) => a + b, 0n);

function padded(data: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(Math.max(size, data.length));
  out.set(data);
  return out;
}
