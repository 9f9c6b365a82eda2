/**
 * The development sample registry (SEED_SAMPLE_AGENTS): a dozen agents across the built-in
 * categories, as plain data. `sample-agent-accounts.ts` turns it into the program's accounts.
 *
 * Everything here is fixed, so every fresh embedded ledger holds the same agents at the same
 * addresses (the keys are derived from SAMPLE_KEY_SEED and each agent's slug).
 */
import type { ServiceType } from "../../../../domain/registry/agent-service.ts";

/** Changing this moves every sample address (the README shows them). */
export const SAMPLE_KEY_SEED = "x84-sample-agents/v1";

/**
 * How a client finds the one sample agent it can pay: `GET /agents?q=<this>` matches only its
 * metadataUri. Its owner, the payTo of its services, holds SOL and a USDC token account.
 */
export const PAYABLE_SAMPLE_HOST = "weather-oracle.example.com";

export type SampleService = Readonly<{ type: ServiceType; path: string; version: string; active?: boolean }>;

/**
 * One feedback entry: `reviewer` indexes the shared reviewer keys, `at` is its time (also its PDA
 * nonce). `paid` (USDC base units) makes it verified: payment proof set, as give_feedback records
 * it with a PaymentReceipt. Its first tag is the agent's first category.
 */
export type SampleFeedback = Readonly<{ reviewer: number; score: number; at: string; paid?: bigint }>;

export type SampleAgent = Readonly<{
  /** Host of its metadata and endpoints, and the label its keys are derived from. */
  slug: string;
  name: string;
  description: string;
  categories: readonly string[];
  createdAt: string;
  active?: boolean;
  services: readonly SampleService[];
  feedback: readonly SampleFeedback[];
  /** The payable agent: its owner gets SOL and a USDC token account. */
  payable?: true;
}>;

/** Reviewers are shared between agents, as real users review several. */
export const SAMPLE_REVIEWER_COUNT = 8;

export const SAMPLE_AGENTS: readonly SampleAgent[] = Object.freeze([
  {
    slug: "weather-oracle",
    name: "Weather Oracle",
    description: "Hourly forecasts and historical weather for any city, paid per call in USDC.",
    categories: ["data", "analytics"],
    createdAt: "2026-09-02T09:00:00Z",
    payable: true,
    services: [
      { type: "api", path: "/v1/forecast", version: "1.4.0" },
      { type: "mcp", path: "/mcp", version: "1.4.0" },
      { type: "a2a", path: "/a2a", version: "0.3.0" },
    ],
    feedback: [
      { reviewer: 0, score: 96, at: "2026-10-03T08:12:00Z", paid: 10_000n },
      { reviewer: 1, score: 91, at: "2026-10-19T17:40:00Z", paid: 10_000n },
      { reviewer: 2, score: 88, at: "2026-11-02T06:05:00Z", paid: 50_000n },
      { reviewer: 3, score: 70, at: "2026-11-09T21:30:00Z" },
      { reviewer: 4, score: 94, at: "2026-11-20T12:00:00Z", paid: 10_000n },
    ],
  },
  {
    slug: "yield-scout",
    name: "Yield Scout",
    description: "Compares lending and LP yields across Solana protocols and explains the risks.",
    categories: ["defi", "analytics"],
    createdAt: "2026-08-11T14:00:00Z",
    services: [
      { type: "mcp", path: "/mcp", version: "2.1.0" },
      { type: "a2a", path: "/a2a", version: "0.3.0" },
      { type: "web", path: "/", version: "2.1.0" },
    ],
    feedback: [
      { reviewer: 1, score: 84, at: "2026-09-01T10:00:00Z", paid: 250_000n },
      { reviewer: 5, score: 77, at: "2026-09-15T11:30:00Z" },
      { reviewer: 6, score: 90, at: "2026-10-28T19:45:00Z", paid: 250_000n },
    ],
  },
  {
    slug: "swap-router",
    name: "Swap Router",
    description: "Finds the best route for a token swap and returns an unsigned transaction.",
    categories: ["trading", "defi"],
    createdAt: "2026-07-20T08:30:00Z",
    services: [
      { type: "api", path: "/v2/quote", version: "2.0.3" },
      { type: "mcp", path: "/mcp", version: "2.0.3" },
    ],
    feedback: [
      { reviewer: 0, score: 82, at: "2026-08-02T09:00:00Z", paid: 20_000n },
      { reviewer: 2, score: 65, at: "2026-08-20T13:15:00Z" },
      { reviewer: 6, score: 88, at: "2026-09-30T16:20:00Z", paid: 20_000n },
      { reviewer: 7, score: 79, at: "2026-11-12T07:50:00Z", paid: 20_000n },
    ],
  },
  {
    slug: "invoice-agent",
    name: "Invoice Agent",
    description: "Issues invoices, chases late payers and reconciles USDC receipts.",
    categories: ["payments", "productivity"],
    createdAt: "2026-09-18T10:00:00Z",
    services: [
      { type: "a2a", path: "/a2a", version: "0.3.0" },
      { type: "web", path: "/", version: "1.0.1" },
    ],
    feedback: [
      { reviewer: 3, score: 93, at: "2026-10-05T15:00:00Z", paid: 1_000_000n },
      { reviewer: 4, score: 86, at: "2026-10-30T09:10:00Z" },
    ],
  },
  {
    slug: "research-desk",
    name: "Research Desk",
    description: "Writes sourced briefs on protocols, tokens and on-chain activity.",
    categories: ["research", "data"],
    createdAt: "2026-06-30T12:00:00Z",
    services: [
      { type: "a2a", path: "/a2a", version: "0.2.6" },
      { type: "api", path: "/v1/briefs", version: "1.7.0" },
      { type: "web", path: "/", version: "1.7.0" },
    ],
    feedback: [
      { reviewer: 1, score: 89, at: "2026-07-14T10:00:00Z", paid: 500_000n },
      { reviewer: 5, score: 92, at: "2026-08-09T18:00:00Z", paid: 500_000n },
      { reviewer: 7, score: 58, at: "2026-09-22T08:00:00Z" },
    ],
  },
  {
    slug: "code-reviewer",
    name: "Code Reviewer",
    description: "Reviews pull requests for Anchor and TypeScript code and suggests fixes.",
    categories: ["coding", "security"],
    createdAt: "2026-08-25T07:00:00Z",
    services: [
      { type: "mcp", path: "/mcp", version: "0.9.2" },
      { type: "api", path: "/v1/reviews", version: "0.9.2" },
    ],
    feedback: [
      { reviewer: 2, score: 95, at: "2026-09-05T12:00:00Z", paid: 100_000n },
      { reviewer: 4, score: 81, at: "2026-10-11T14:30:00Z", paid: 100_000n },
      { reviewer: 6, score: 74, at: "2026-11-03T10:45:00Z" },
    ],
  },
  {
    slug: "copy-studio",
    name: "Copy Studio",
    description: "Drafts launch posts, threads and newsletters in your project's voice.",
    categories: ["content", "social"],
    createdAt: "2026-10-01T16:00:00Z",
    services: [
      { type: "a2a", path: "/a2a", version: "0.3.0" },
      { type: "web", path: "/", version: "3.2.0" },
    ],
    feedback: [
      { reviewer: 0, score: 72, at: "2026-10-12T09:30:00Z" },
      { reviewer: 5, score: 85, at: "2026-11-06T20:00:00Z", paid: 30_000n },
    ],
  },
  {
    slug: "quest-master",
    name: "Quest Master",
    description: "Runs on-chain quests and mints reward NFTs to the players who finish them.",
    categories: ["gaming", "nft"],
    createdAt: "2026-07-04T19:00:00Z",
    services: [
      { type: "api", path: "/v1/quests", version: "1.1.0" },
      { type: "web", path: "/", version: "1.1.0" },
      { type: "mcp", path: "/mcp", version: "1.0.0", active: false },
    ],
    feedback: [
      { reviewer: 3, score: 68, at: "2026-07-30T21:00:00Z" },
      { reviewer: 6, score: 80, at: "2026-08-18T17:00:00Z", paid: 5_000n },
      { reviewer: 7, score: 90, at: "2026-10-24T15:30:00Z", paid: 5_000n },
    ],
  },
  {
    slug: "contract-auditor",
    name: "Contract Auditor",
    description: "Static and fuzz analysis of Solana programs, with a findings report.",
    categories: ["security", "infrastructure", "coding"],
    createdAt: "2026-06-12T09:00:00Z",
    services: [
      { type: "api", path: "/v1/audits", version: "4.0.0" },
      { type: "a2a", path: "/a2a", version: "0.3.0" },
    ],
    feedback: [
      { reviewer: 1, score: 97, at: "2026-07-01T08:00:00Z", paid: 2_000_000n },
      { reviewer: 2, score: 93, at: "2026-08-27T11:00:00Z", paid: 2_000_000n },
    ],
  },
  {
    slug: "rpc-watchdog",
    name: "RPC Watchdog",
    description: "Monitors RPC endpoints and validators and pages you before users notice.",
    categories: ["infrastructure"],
    createdAt: "2026-05-28T06:00:00Z",
    // Retired by its owner: shows up with active=false.
    active: false,
    services: [
      { type: "api", path: "/v1/checks", version: "1.2.0", active: false },
      { type: "web", path: "/", version: "1.2.0", active: false },
    ],
    feedback: [
      { reviewer: 4, score: 60, at: "2026-06-20T10:00:00Z" },
      { reviewer: 5, score: 71, at: "2026-07-22T10:00:00Z", paid: 15_000n },
    ],
  },
  {
    slug: "helpdesk",
    name: "Helpdesk",
    description: "Answers your users' support tickets from your docs and hands over the hard ones.",
    categories: ["customer-support", "productivity", "social"],
    createdAt: "2026-09-09T11:00:00Z",
    services: [
      { type: "a2a", path: "/a2a", version: "0.3.0" },
      { type: "mcp", path: "/mcp", version: "1.3.1" },
      { type: "web", path: "/", version: "1.3.1" },
    ],
    feedback: [
      { reviewer: 0, score: 87, at: "2026-09-29T13:00:00Z", paid: 40_000n },
      { reviewer: 3, score: 83, at: "2026-10-16T09:20:00Z" },
      { reviewer: 7, score: 91, at: "2026-11-15T18:10:00Z", paid: 40_000n },
    ],
  },
  {
    slug: "solana-tutor",
    name: "Solana Tutor",
    description: "Teaches Solana development step by step, with exercises checked on devnet.",
    categories: ["education", "research"],
    createdAt: "2026-10-14T08:00:00Z",
    services: [
      { type: "web", path: "/", version: "1.0.0" },
      { type: "a2a", path: "/a2a", version: "0.3.0" },
    ],
    feedback: [{ reviewer: 2, score: 99, at: "2026-11-18T16:00:00Z" }],
  },
]);
