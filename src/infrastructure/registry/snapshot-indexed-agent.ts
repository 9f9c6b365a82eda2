import type { Address } from "@solana/kit";
import type { AgentIdentity } from "../../domain/registry/agent-identity.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { IndexedAgent } from "../../domain/registry/indexed-agent.ts";

/**
 * The one place a snapshot's agents become index records (the same class a decoded account
 * becomes in ledger-agent-index.ts), so a change to the record's shape is made here for snapshots.
 */
export function toIndexedAgent(address: Address, identity: AgentIdentity): AgentRecord {
  return new IndexedAgent(address, identity);
}
