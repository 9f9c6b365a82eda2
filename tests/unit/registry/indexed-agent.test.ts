import { describe, expect, test } from "bun:test";
import { decodeAgentIdentity, encodeAgentIdentity, type AgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { buildAgentCatalog } from "../../../src/domain/registry/agent-catalog.ts";
import { IndexedAgent } from "../../../src/domain/registry/indexed-agent.ts";
import { agentIdentity, hashBytes, padded, testAddress } from "../../registry/support/registry-fixtures.ts";

const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/** The identity as the account codec decodes it. */
function decoded(identity: AgentIdentity): { value: AgentIdentity } {
  const result = decodeAgentIdentity(padded(encodeAgentIdentity(identity), 700));
  if (!result.ok) throw new Error(result.detail);
  return { value: result.value };
}

describe("indexed agent (the compact record)", () => {
  const cases: [string, Partial<AgentIdentity>][] = [
    ["ordinary values", {}],
    ["a distinct metadata hash, feedback authority and two tags", { metadataHash: Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 250) % 256), feedbackAuthority: testAddress(5, 77), tags: [hashBytes("defi"), hashBytes("data")] }],
    ["times and counters past 2^53, and negative times", { createdAt: -(2n ** 63n), updatedAt: I64_MAX, ownerVersion: U64_MAX, verifiedFeedbackCount: 2n ** 53n + 1n, verifiedScoreSum: U64_MAX - 1n, unverifiedFeedbackCount: 2n ** 60n, unverifiedScoreSum: 3n, validationCount: 2n ** 53n, delegationCount: 9_007_199_254_740_991n }],
    ["no tags, inactive, an upper-case URI and the owner as feedback authority", { tags: [], active: false, metadataUri: "HTTPS://Agents.Example/Ä/Card.json", feedbackAuthority: testAddress(2, 1) }],
  ];

  for (const [name, overrides] of cases) {
    test(`gives back exactly the decoded identity: ${name}`, () => {
      const { value } = decoded(agentIdentity(1, overrides));
      const agent = new IndexedAgent(testAddress(9, 1), value);
      expect(agent.identity).toEqual(value);
      expect(agent.address).toBe(testAddress(9, 1));
      expect(agent.updatedAt).toBe(value.updatedAt);
      expect(agent.uriLower).toBe(value.metadataUri.toLowerCase());
      expect(agent.record).toBe(agent);
    });
  }

  test("lists in the same order as plain records, ties and times past 2^53 included", () => {
    const times = [1_700_000_000n, 1_700_000_000n, 2n ** 60n, 2n ** 60n + 1n, 2n ** 60n + 1n, -5n, I64_MAX, I64_MAX - 1n];
    const identities = times.map((updatedAt, n) => decoded(agentIdentity(n, { updatedAt })).value);
    const plain = buildAgentCatalog(identities.map((identity, n) => ({ address: testAddress(9, n), identity })));
    const compact = buildAgentCatalog(identities.map((identity, n) => new IndexedAgent(testAddress(9, n), identity)));
    const order = (catalog: typeof plain) => catalog.page({ limit: 100 }).items.map((r) => r.identity.nftMint);
    expect(order(compact)).toEqual(order(plain));
    expect(order(compact)[0]).toBe(identities[6]?.nftMint);
    // A cursor between two agents past 2^53 that differ by 1 second continues exactly.
    const first = compact.page({ limit: 3 });
    expect(first.nextKey?.updatedAt).toBe(2n ** 60n + 1n);
    const rest = compact.page({ limit: 100, after: first.nextKey ?? undefined });
    expect([...first.items, ...rest.items].map((r) => r.identity.nftMint)).toEqual(order(plain));
  });
});
