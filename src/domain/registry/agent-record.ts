import type { Address } from "@solana/kit";
import type { AgentIdentity } from "./agent-identity.ts";

/**
 * One indexed agent: its account address (the agent PDA) and the decoded account. A file of its
 * own because both the catalog and its index hold records; in either one it would tie the two
 * into an import cycle.
 */
export type AgentRecord = Readonly<{ address: Address; identity: AgentIdentity }>;
