/**
 * The development sample registry (SEED_SAMPLE_AGENTS): a dozen agents across the built-in
 * categories, as plain data. `sample-agent-accounts.ts` turns it into the program's accounts.
 *
 * Everything here is fixed, so every fresh embedded ledger holds the same agents at the same
 * addresses (the keys are derived from SAMPLE_KEY_SEED and each agent's slug).
 */
import type { ServiceType } from "../../../domain/registry/agent-service.ts";

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

/** `[type, path, version, false when inactive]` */
type ServiceRow = readonly [ServiceType, string, string, false?];
/** `[reviewer, score, at, paid]` */
type FeedbackRow = readonly [number, number, string, bigint?];
type AgentRow = Omit<SampleAgent, "services" | "feedback"> & Readonly<{ services: readonly ServiceRow[]; feedback: readonly FeedbackRow[] }>;

/** One agent a row: the fields of SampleAgent, with its services and feedback as tuples. */
const AGENT_ROWS: readonly AgentRow[] = [
  { slug: "weather-oracle", name: "Weather Oracle", categories: ["data", "analytics"], createdAt: "2026-09-02T09:00:00Z", payable: true,
    description: "Hourly forecasts and historical weather for any city, paid per call in USDC.",
    services: [["api", "/v1/forecast", "1.4.0"], ["mcp", "/mcp", "1.4.0"], ["a2a", "/a2a", "0.3.0"]],
    feedback: [[0, 96, "2026-10-03T08:12:00Z", 10_000n], [1, 91, "2026-10-19T17:40:00Z", 10_000n], [2, 88, "2026-11-02T06:05:00Z", 50_000n], [3, 70, "2026-11-09T21:30:00Z"], [4, 94, "2026-11-20T12:00:00Z", 10_000n]] },
  { slug: "yield-scout", name: "Yield Scout", categories: ["defi", "analytics"], createdAt: "2026-08-11T14:00:00Z",
    description: "Compares lending and LP yields across Solana protocols and explains the risks.",
    services: [["mcp", "/mcp", "2.1.0"], ["a2a", "/a2a", "0.3.0"], ["web", "/", "2.1.0"]],
    feedback: [[1, 84, "2026-09-01T10:00:00Z", 250_000n], [5, 77, "2026-09-15T11:30:00Z"], [6, 90, "2026-10-28T19:45:00Z", 250_000n]] },
  { slug: "swap-router", name: "Swap Router", categories: ["trading", "defi"], createdAt: "2026-07-20T08:30:00Z",
    description: "Finds the best route for a token swap and returns an unsigned transaction.",
    services: [["api", "/v2/quote", "2.0.3"], ["mcp", "/mcp", "2.0.3"]],
    feedback: [[0, 82, "2026-08-02T09:00:00Z", 20_000n], [2, 65, "2026-08-20T13:15:00Z"], [6, 88, "2026-09-30T16:20:00Z", 20_000n], [7, 79, "2026-11-12T07:50:00Z", 20_000n]] },
  { slug: "invoice-agent", name: "Invoice Agent", categories: ["payments", "productivity"], createdAt: "2026-09-18T10:00:00Z",
    description: "Issues invoices, chases late payers and reconciles USDC receipts.",
    services: [["a2a", "/a2a", "0.3.0"], ["web", "/", "1.0.1"]],
    feedback: [[3, 93, "2026-10-05T15:00:00Z", 1_000_000n], [4, 86, "2026-10-30T09:10:00Z"]] },
  { slug: "research-desk", name: "Research Desk", categories: ["research", "data"], createdAt: "2026-06-30T12:00:00Z",
    description: "Writes sourced briefs on protocols, tokens and on-chain activity.",
    services: [["a2a", "/a2a", "0.2.6"], ["api", "/v1/briefs", "1.7.0"], ["web", "/", "1.7.0"]],
    feedback: [[1, 89, "2026-07-14T10:00:00Z", 500_000n], [5, 92, "2026-08-09T18:00:00Z", 500_000n], [7, 58, "2026-09-22T08:00:00Z"]] },
  { slug: "code-reviewer", name: "Code Reviewer", categories: ["coding", "security"], createdAt: "2026-08-25T07:00:00Z",
    description: "Reviews pull requests for Anchor and TypeScript code and suggests fixes.",
    services: [["mcp", "/mcp", "0.9.2"], ["api", "/v1/reviews", "0.9.2"]],
    feedback: [[2, 95, "2026-09-05T12:00:00Z", 100_000n], [4, 81, "2026-10-11T14:30:00Z", 100_000n], [6, 74, "2026-11-03T10:45:00Z"]] },
  { slug: "copy-studio", name: "Copy Studio", categories: ["content", "social"], createdAt: "2026-10-01T16:00:00Z",
    description: "Drafts launch posts, threads and newsletters in your project's voice.",
    services: [["a2a", "/a2a", "0.3.0"], ["web", "/", "3.2.0"]],
    feedback: [[0, 72, "2026-10-12T09:30:00Z"], [5, 85, "2026-11-06T20:00:00Z", 30_000n]] },
  { slug: "quest-master", name: "Quest Master", categories: ["gaming", "nft"], createdAt: "2026-07-04T19:00:00Z",
    description: "Runs on-chain quests and mints reward NFTs to the players who finish them.",
    services: [["api", "/v1/quests", "1.1.0"], ["web", "/", "1.1.0"], ["mcp", "/mcp", "1.0.0", false]],
    feedback: [[3, 68, "2026-07-30T21:00:00Z"], [6, 80, "2026-08-18T17:00:00Z", 5_000n], [7, 90, "2026-10-24T15:30:00Z", 5_000n]] },
  { slug: "contract-auditor", name: "Contract Auditor", categories: ["security", "infrastructure", "coding"], createdAt: "2026-06-12T09:00:00Z",
    description: "Static and fuzz analysis of Solana programs, with a findings report.",
    services: [["api", "/v1/audits", "4.0.0"], ["a2a", "/a2a", "0.3.0"]],
    feedback: [[1, 97, "2026-07-01T08:00:00Z", 2_000_000n], [2, 93, "2026-08-27T11:00:00Z", 2_000_000n]] },
  // Retired by its owner: shows up with active=false.
  { slug: "rpc-watchdog", name: "RPC Watchdog", categories: ["infrastructure"], createdAt: "2026-05-28T06:00:00Z", active: false,
    description: "Monitors RPC endpoints and validators and pages you before users notice.",
    services: [["api", "/v1/checks", "1.2.0", false], ["web", "/", "1.2.0", false]],
    feedback: [[4, 60, "2026-06-20T10:00:00Z"], [5, 71, "2026-07-22T10:00:00Z", 15_000n]] },
  { slug: "helpdesk", name: "Helpdesk", categories: ["customer-support", "productivity", "social"], createdAt: "2026-09-09T11:00:00Z",
    description: "Answers your users' support tickets from your docs and hands over the hard ones.",
    services: [["a2a", "/a2a", "0.3.0"], ["mcp", "/mcp", "1.3.1"], ["web", "/", "1.3.1"]],
    feedback: [[0, 87, "2026-09-29T13:00:00Z", 40_000n], [3, 83, "2026-10-16T09:20:00Z"], [7, 91, "2026-11-15T18:10:00Z", 40_000n]] },
  { slug: "solana-tutor", name: "Solana Tutor", categories: ["education", "research"], createdAt: "2026-10-14T08:00:00Z",
    description: "Teaches Solana development step by step, with exercises checked on devnet.",
    services: [["web", "/", "1.0.0"], ["a2a", "/a2a", "0.3.0"]],
    feedback: [[2, 99, "2026-11-18T16:00:00Z"]] },
];

export const SAMPLE_AGENTS: readonly SampleAgent[] = Object.freeze(
  AGENT_ROWS.map(({ services, feedback, ...agent }) => ({
    ...agent,
    services: services.map(([type, path, version, active]) => ({ type, path, version, ...(active === false ? { active } : {}) })),
    feedback: feedback.map(([reviewer, score, at, paid]) => ({ reviewer, score, at, ...(paid === undefined ? {} : { paid }) })),
  })),
);
