import { getU64Decoder, type Address } from "@solana/kit";
import { hasDiscriminator } from "../registry/borsh-codecs.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../registry/agent-identity.ts";
import { reject, type Rejection } from "../rejection.ts";
import type { OwnedAccount } from "./owned-account.ts";
import { decodeDelegation, type Delegation } from "./delegation.ts";

/** `AgentIdentity.owner_version`: discriminator (8) + nft_mint (32) + owner (32). */
export const AGENT_OWNER_VERSION_OFFSET = 72;

/** What one delegated payment asks of a Delegation. */
export type DelegationUse = Readonly<{
  /** Unix seconds from the injected clock. */
  nowSeconds: bigint;
  /** `owner_version` of the delegation's agent as the ledger holds it now. */
  agentOwnerVersion: bigint;
  amount: bigint;
  asset: string;
  /** Whose tokens move: must be the delegator. */
  payer: Address;
  /** `extensions.delegate`, when given: must be the delegation's delegate. */
  delegate?: Address;
}>;

/**
 * SECURITY: only accounts owned by the registry program are Delegations; anyone can create an
 * account with the same bytes under their own program and claim a budget they were never given.
 */
export function decodeDelegationAccount(account: OwnedAccount, programId: Address): Delegation | Rejection {
  if (account.owner !== programId) {
    return reject("DELEGATION_INVALID", `delegation ${account.address} is owned by ${account.owner}, not the registry program`);
  }
  const decoded = decodeDelegation(account.data);
  return decoded.ok ? decoded.value : reject("DELEGATION_INVALID", `account ${account.address} is not a Delegation: ${decoded.detail}`);
}

/**
 * SECURITY: the client-given delegation address must be the PDA of the delegation's own
 * seeds (as revoke_delegation re-derives it), so a program-owned account of another kind or
 * a stale copy cannot stand in for it.
 */
export function checkDelegationAddress(given: Address, derived: Address): Rejection | null {
  return given === derived ? null : reject("DELEGATION_INVALID", `delegationPda ${given} is not the PDA of its seeds (${derived})`);
}

/** The agent's current owner_version, read from its AgentIdentity account without decoding the rest. */
export function readAgentOwnerVersion(account: OwnedAccount | null, programId: Address): bigint | Rejection {
  if (account === null) return reject("DELEGATION_INVALID", "the delegation's agent account does not exist");
  if (account.owner !== programId || !hasDiscriminator(account.data, AGENT_IDENTITY_DISCRIMINATOR)) {
    return reject("DELEGATION_INVALID", `account ${account.address} is not the registry program's AgentIdentity`);
  }
  if (account.data.length < AGENT_OWNER_VERSION_OFFSET + 8) return reject("DELEGATION_INVALID", "agent account is truncated");
  return getU64Decoder().decode(account.data, AGENT_OWNER_VERSION_OFFSET);
}

/** SECURITY: a delegation spends its delegator's funds only, for its own delegate only. */
function checkParties(delegation: Delegation, use: DelegationUse): Rejection | null {
  if (delegation.delegator !== use.payer) {
    return reject("DELEGATION_INVALID", `payer ${use.payer} is not the delegation's delegator ${delegation.delegator}`);
  }
  if (use.delegate !== undefined && use.delegate !== delegation.delegate) {
    return reject("DELEGATION_INVALID", `extensions.delegate ${use.delegate} is not the delegation's delegate ${delegation.delegate}`);
  }
  return null;
}

/** Active, not revoked, may transact, not expired, and the agent has not changed hands since. */
function checkStanding(delegation: Delegation, use: DelegationUse): Rejection | null {
  if (!delegation.active) return reject("DELEGATION_INVALID", "delegation is not active");
  if (delegation.revokedAt !== null) return reject("DELEGATION_INVALID", `delegation was revoked at ${delegation.revokedAt}`);
  if (!delegation.canTransact) return reject("DELEGATION_INVALID", "delegation does not grant can_transact");
  if (delegation.expiresAt !== 0n && use.nowSeconds >= delegation.expiresAt) {
    return reject("DELEGATION_EXPIRED", `delegation expired at ${delegation.expiresAt} (now ${use.nowSeconds})`);
  }
  // SECURITY: claim_agent bumps owner_version; a delegation from a previous owner must not spend.
  if (delegation.ownerVersion !== use.agentOwnerVersion) {
    return reject("DELEGATION_INVALID", `delegation owner_version ${delegation.ownerVersion} is stale (agent is at ${use.agentOwnerVersion})`);
  }
  return null;
}

/** Allowed tokens, per-transaction and cumulative limits. 0 means "no limit"; empty means "all". */
function checkLimits(delegation: Delegation, use: DelegationUse): Rejection | null {
  if (delegation.allowedTokens.length > 0 && !delegation.allowedTokens.some((mint) => mint === use.asset)) {
    return reject("DELEGATION_INVALID", `token ${use.asset} is not among the delegation's allowed tokens`);
  }
  if (delegation.maxSpendPerTx !== 0n && use.amount > delegation.maxSpendPerTx) {
    return reject("DELEGATION_BUDGET_EXCEEDED", `amount ${use.amount} exceeds the per-transaction limit ${delegation.maxSpendPerTx}`);
  }
  if (delegation.maxSpendTotal !== 0n && delegation.spentTotal + use.amount > delegation.maxSpendTotal) {
    const left = delegation.maxSpendTotal - delegation.spentTotal;
    return reject("DELEGATION_BUDGET_EXCEEDED", `amount ${use.amount} exceeds the remaining total budget ${left < 0n ? 0n : left}`);
  }
  // uses_remaining: 0 is "unlimited" in the IDL, and any other value still allows this use,
  // so it never refuses on its own; an exhausted delegation is one the program deactivated.
  return null;
}

/** The Delegation checks, in the order the program would meet them; the first rejection wins. */
export function checkDelegation(delegation: Delegation, use: DelegationUse): Rejection | null {
  return checkParties(delegation, use) ?? checkStanding(delegation, use) ?? checkLimits(delegation, use);
}
