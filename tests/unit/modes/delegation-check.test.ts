import { describe, expect, test } from "bun:test";
import { getU64Encoder } from "@solana/kit";
import {
  AGENT_OWNER_VERSION_OFFSET,
  checkDelegation,
  checkDelegationAddress,
  decodeDelegationAccount,
  readAgentOwnerVersion,
  type DelegationUse,
} from "../../../src/domain/modes/delegation-check.ts";
import { encodeDelegation, type Delegation } from "../../../src/domain/modes/delegation.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../../../src/domain/registry/agent-identity.ts";
import type { ReasonCode } from "../../../src/domain/reason-codes.ts";
import { NOW_S, PAYER, PROGRAM_ID, USDC, delegation, testAddress } from "../../modes/support/mode-fixtures.ts";

const use: DelegationUse = { nowSeconds: BigInt(NOW_S), agentOwnerVersion: 2n, amount: 1_000_000n, asset: USDC, payer: PAYER };

describe("checkDelegation (pure, as the program would)", () => {
  test("accepts an active, unexpired delegation within its limits", () => {
    expect(checkDelegation(delegation(), use)).toBeNull();
  });

  test("0 limits, no expiry, empty allowed_tokens and 0 uses_remaining mean unlimited", () => {
    const open = delegation({ maxSpendPerTx: 0n, maxSpendTotal: 0n, expiresAt: 0n, allowedTokens: [], usesRemaining: 0n, spentTotal: 10n ** 15n });
    expect(checkDelegation(open, { ...use, amount: 10n ** 12n })).toBeNull();
  });

  test("accepts spending exactly up to the per-tx and total limits", () => {
    expect(checkDelegation(delegation({ maxSpendPerTx: 1_000_000n, maxSpendTotal: 5_000_000n, spentTotal: 4_000_000n }), use)).toBeNull();
  });

  const refusals: [string, Partial<Delegation>, Partial<DelegationUse>, ReasonCode][] = [
    ["inactive", { active: false }, {}, "DELEGATION_INVALID"],
    ["revoked", { revokedAt: BigInt(NOW_S - 5) }, {}, "DELEGATION_INVALID"],
    ["without can_transact", { canTransact: false }, {}, "DELEGATION_INVALID"],
    ["expired (expires_at == now)", { expiresAt: BigInt(NOW_S) }, {}, "DELEGATION_EXPIRED"],
    ["expired an hour ago", { expiresAt: BigInt(NOW_S - 3600) }, {}, "DELEGATION_EXPIRED"],
    ["from a previous owner (owner_version 1 < 2)", { ownerVersion: 1n }, {}, "DELEGATION_INVALID"],
    ["for other tokens only", { allowedTokens: [testAddress(70)] }, {}, "DELEGATION_INVALID"],
    ["over the per-tx limit by 1", { maxSpendPerTx: 999_999n }, {}, "DELEGATION_BUDGET_EXCEEDED"],
    ["over the total limit by 1", { maxSpendTotal: 20_000_000n, spentTotal: 19_000_001n }, {}, "DELEGATION_BUDGET_EXCEEDED"],
    ["granted by someone other than the payer", {}, { payer: testAddress(71) }, "DELEGATION_INVALID"],
    ["for another delegate than extensions.delegate", {}, { delegate: testAddress(72) }, "DELEGATION_INVALID"],
  ];
  for (const [name, override, useOverride, reason] of refusals) {
    test(`refuses a delegation ${name}: ${reason}`, () => {
      expect(checkDelegation(delegation(override), { ...use, ...useOverride })?.reason).toBe(reason);
    });
  }
});

describe("Delegation account and agent owner_version readers (pure)", () => {
  test("decodeDelegationAccount requires the registry program as owner", () => {
    const data = encodeDelegation(delegation());
    const ok = decodeDelegationAccount({ address: testAddress(1), owner: PROGRAM_ID, data }, PROGRAM_ID);
    expect("reason" in ok ? ok.message : ok.delegationId).toBe(3n);
    const foreign = decodeDelegationAccount({ address: testAddress(1), owner: testAddress(2), data }, PROGRAM_ID);
    expect("reason" in foreign && foreign.reason).toBe("DELEGATION_INVALID");
    const garbage = decodeDelegationAccount({ address: testAddress(1), owner: PROGRAM_ID, data: new Uint8Array(50) }, PROGRAM_ID);
    expect("reason" in garbage && garbage.reason).toBe("DELEGATION_INVALID");
  });

  test("checkDelegationAddress compares with the PDA of the account's own seeds", () => {
    expect(checkDelegationAddress(testAddress(5), testAddress(5))).toBeNull();
    expect(checkDelegationAddress(testAddress(5), testAddress(6))?.reason).toBe("DELEGATION_INVALID");
  });

  test("readAgentOwnerVersion reads the u64 at offset 72 of a program-owned AgentIdentity", () => {
    const data = new Uint8Array(120);
    data.set(AGENT_IDENTITY_DISCRIMINATOR, 0);
    data.set(getU64Encoder().encode(7n), AGENT_OWNER_VERSION_OFFSET);
    expect(readAgentOwnerVersion({ address: testAddress(1), owner: PROGRAM_ID, data }, PROGRAM_ID)).toBe(7n);
    expect(readAgentOwnerVersion(null, PROGRAM_ID)).toMatchObject({ reason: "DELEGATION_INVALID" });
    expect(readAgentOwnerVersion({ address: testAddress(1), owner: testAddress(3), data }, PROGRAM_ID)).toMatchObject({ reason: "DELEGATION_INVALID" });
    expect(readAgentOwnerVersion({ address: testAddress(1), owner: PROGRAM_ID, data: data.subarray(0, 75) }, PROGRAM_ID)).toMatchObject({ reason: "DELEGATION_INVALID" });
  });
});
