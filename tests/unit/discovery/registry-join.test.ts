import { describe, expect, test } from "bun:test";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { createRegistryJoin, normalisedEndpoint } from "../../../src/application/discovery/registry-join.ts";
import type { CatalogueEntry } from "../../../src/domain/discovery/catalogue-entry.ts";
import { encodeAgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { encodeAgentService } from "../../../src/domain/registry/agent-service.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { createAgentIndex } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { agentIdentity, agentService, hashBytes, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

/** Three agents on the real index over a hand-written ledger: 0 (defi) serves an API, 1 (data) and 2 (data) share an owner. */
function setup() {
  const ledger = createFakeLedger(PROGRAM_ID);
  const sharedOwner = testAddress(3, 1);
  const identities = [
    agentIdentity(0, { tags: [hashBytes("defi")] }),
    agentIdentity(1, { tags: [hashBytes("data")], owner: sharedOwner, updatedAt: 100n }),
    agentIdentity(2, { tags: [hashBytes("data")], owner: sharedOwner, updatedAt: 200n }),
  ];
  identities.forEach((identity, n) => ledger.put(testAddress(9, n), padded(encodeAgentIdentity(identity), 600)));
  ledger.put(testAddress(7, 1), encodeAgentService(agentService(identities[0]!.nftMint, "api", { endpoint: "https://api.agent-zero.example.com/v1/quote?x=1" })));
  const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
  const join = createRegistryJoin({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES), clock: createManualClock() });
  return { join, identities, sharedOwner };
}

function entry(resource: string, payTo: string): CatalogueEntry {
  return { key: "k", resource, type: "http", operation: "GET", payTo, x402Version: 2, extensions: {}, accepts: [], firstSettledAt: "", lastSettledAt: "", updatedAt: "" };
}

describe("the catalogue's registry join (real agent index over a hand-written ledger)", () => {
  test("an entry at a registered service's URL carries that agent, whoever the payTo", async () => {
    const { join, identities } = setup();
    const agent = await join.agentOf(entry("https://api.agent-zero.example.com/v1/quote", testAddress(5, 5)));
    expect(agent).toMatchObject({ nftMint: identities[0]!.nftMint, categories: ["defi"] });
    expect(agent?.reputation).toEqual(expect.objectContaining({ verifiedCount: expect.any(Number) }));
  });

  test("an entry paid to an agent's owner carries the owner's most recently updated agent; an unknown payee none", async () => {
    const { join, identities, sharedOwner } = setup();
    expect((await join.agentOf(entry("https://elsewhere.example.com/x", sharedOwner)))?.nftMint).toBe(identities[2]!.nftMint);
    expect(await join.agentOf(entry("https://elsewhere.example.com/x", testAddress(5, 6)))).toBeNull();
  });

  test("payees: an agent's owner and its services' endpoints; a category's agents' owners; an unknown agent null", async () => {
    const { join, identities, sharedOwner } = setup();
    expect(await join.payeesOfAgent(identities[0]!.nftMint)).toEqual({ payTos: [identities[0]!.owner], resources: ["https://api.agent-zero.example.com/v1/quote"] });
    expect(await join.payeesOfAgent(testAddress(5, 7))).toBeNull();
    expect(await join.payeesOfCategory("data")).toEqual({ payTos: [sharedOwner], resources: [] });
    expect((await join.payeesOfCategory("nobody-uses-this")).payTos).toEqual([]);
  });

  test("endpoints are compared as catalogue URLs: origin and path, no query; non-http endpoints never match", () => {
    expect(normalisedEndpoint("https://a.example.com/p?q=1#f")).toBe("https://a.example.com/p");
    expect(normalisedEndpoint("HTTPS://A.example.com")).toBe("https://a.example.com/");
    expect(normalisedEndpoint("ipfs://bafy")).toBeNull();
    expect(normalisedEndpoint("not a url")).toBeNull();
  });
});
