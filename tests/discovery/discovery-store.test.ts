import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DiscoveryDeclaration, locatorOf } from "../../src/domain/discovery/catalogue-entry.ts";
import type { DiscoveryStore } from "../../src/application/ports/discovery-store.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { createSqlDiscoveryStore } from "../../src/infrastructure/store/sql-discovery-store.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { postgresGate, useTestDatabase } from "../support/postgres.ts";

const MERCHANT = "5uX8qJt8bX3zq2m9m5fZ4Bq9oWj3xZc8tLkQ1yN2pVxA";
const OTHER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
const LIMITS = { ttlSeconds: 3_600, maxEntriesPerPayTo: 3 };

function declaration(overrides: Partial<DiscoveryDeclaration> & { payTo?: string; amount?: string; asset?: string } = {}): DiscoveryDeclaration {
  const { payTo = MERCHANT, amount = "10000", asset = USDC, ...rest } = overrides;
  return {
    resource: "https://api.example.com/weather",
    type: "http",
    operation: "GET",
    x402Version: 2,
    description: "Weather by city",
    tags: ["weather"],
    extensions: { bazaar: { info: { input: { type: "http", method: "GET" } }, schema: { type: "object" } } },
    accept: { scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", asset, amount, payTo, maxTimeoutSeconds: 60 },
    ...rest,
  };
}

/** The same behaviour on PGlite and on a real PostgreSQL server. */
function describeDiscoveryStore(name: string, open: () => Promise<OpenedStore>) {
  describe(`discovery store: ${name}`, () => {
    let opened: OpenedStore;
    let store: DiscoveryStore;
    beforeAll(async () => {
      opened = await open();
      store = createSqlDiscoveryStore(opened.executor);
    });
    afterAll(() => opened?.close());
    const expire = (resource: string) => opened.executor.query("UPDATE discovery_resources SET expires_at = now() - interval '1 second' WHERE resource = $1", [resource]);

    test("a verify before any settlement writes nothing; the first settlement creates the entry; a later verify extends it; a later settlement refreshes the declaration", async () => {
      const first = declaration({ resource: "https://a.example.com/one" });
      expect(await store.refreshSeen(locatorOf(first), LIMITS)).toBe(false);
      expect((await store.list({ payTo: MERCHANT }, { limit: 10, offset: 0 })).total).toBe(0);

      expect(await store.recordSettled(first, LIMITS)).toBe("recorded");
      const [entry] = (await store.list({ payTo: MERCHANT }, { limit: 10, offset: 0 })).items;
      expect(entry).toMatchObject({ resource: "https://a.example.com/one", type: "http", operation: "GET", payTo: MERCHANT, description: "Weather by city", accepts: [first.accept] });

      expect(await store.refreshSeen(locatorOf(first), LIMITS)).toBe(true);
      expect(await store.recordSettled({ ...first, description: "Weather by city, hourly" }, LIMITS)).toBe("recorded");
      const [refreshed] = (await store.list({ payTo: MERCHANT }, { limit: 10, offset: 0 })).items;
      expect(refreshed?.description).toBe("Weather by city, hourly");
      expect(refreshed?.firstSettledAt).toBe(entry?.firstSettledAt ?? "");
    });

    test("accepts: one per (scheme, network, asset), the latest first, a new price replacing the old", async () => {
      const resource = "https://a.example.com/prices";
      await store.recordSettled(declaration({ resource, amount: "100" }), LIMITS);
      await store.recordSettled(declaration({ resource, amount: "200", asset: "Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr" }), LIMITS);
      await store.recordSettled(declaration({ resource, amount: "150" }), LIMITS);
      const page = await store.list({ payTo: MERCHANT }, { limit: 10, offset: 0 });
      const entry = page.items.find((item) => item.resource === resource);
      expect(entry?.accepts.map((a) => [a.asset, a.amount])).toEqual([
        [USDC, "150"],
        ["Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr", "200"],
      ]);
    });

    test("SECURITY: the same URL paid to another payTo is a second entry; it never overwrites the first payee's", async () => {
      const resource = "https://victim.example.com/paid";
      await store.recordSettled(declaration({ resource, description: "the real one" }), LIMITS);
      await store.recordSettled(declaration({ resource, payTo: OTHER, description: "an impostor", amount: "1" }), LIMITS);
      const page = await store.list({}, { limit: 100, offset: 0 });
      const forUrl = page.items.filter((item) => item.resource === resource);
      expect(forUrl.map((item) => [item.payTo, item.description, item.accepts[0]?.amount]).sort()).toEqual([
        [MERCHANT, "the real one", "10000"],
        [OTHER, "an impostor", "1"],
      ]);
    });

    test("SECURITY: a payTo holding its maximum of live entries cannot add another, but still refreshes its own; an expired one frees a place", async () => {
      const payTo = "7Np41oeYqPefeNQEHSv1UDhYrehxin3NStELsSKCT4K2";
      for (const n of [1, 2, 3]) expect(await store.recordSettled(declaration({ payTo, resource: `https://spam.example.com/${n}` }), LIMITS)).toBe("recorded");
      expect(await store.recordSettled(declaration({ payTo, resource: "https://spam.example.com/4" }), LIMITS)).toBe("limited");
      expect(await store.recordSettled(declaration({ payTo, resource: "https://spam.example.com/2", amount: "5" }), LIMITS)).toBe("recorded");
      expect((await store.list({ payTo }, { limit: 10, offset: 0 })).total).toBe(3);

      await expire("https://spam.example.com/1");
      expect(await store.recordSettled(declaration({ payTo, resource: "https://spam.example.com/4" }), LIMITS)).toBe("recorded");
    });

    test("expired entries are not listed, and deleteExpired removes them", async () => {
      const resource = "https://stale.example.com/old";
      await store.recordSettled(declaration({ resource }), LIMITS);
      await expire(resource);
      expect((await store.list({}, { limit: 100, offset: 0 })).items.some((item) => item.resource === resource)).toBe(false);
      expect(await store.deleteExpired()).toBeGreaterThanOrEqual(1);
      const [left] = await opened.executor.query("SELECT count(*)::integer AS n FROM discovery_resources WHERE resource = $1", [resource]);
      expect(left?.["n"]).toBe(0);
    });

    test("filters (type, scheme, network, extensions, payees), search words and pagination", async () => {
      const payTo = "GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW";
      await store.recordSettled(declaration({ payTo, resource: "https://f.example.com/mcp", type: "mcp", operation: "financial_analysis", description: "Deep equity research" }), LIMITS);
      await store.recordSettled(declaration({ payTo, resource: "https://f.example.com/quote", description: "Stock quote", tags: ["finance", "markets"] }), LIMITS);
      const of = (filter: Parameters<DiscoveryStore["list"]>[0]) => store.list({ payTo, ...filter }, { limit: 10, offset: 0 }).then((page) => page.items.map((item) => item.resource).sort());

      expect(await of({ type: "mcp" })).toEqual(["https://f.example.com/mcp"]);
      expect(await of({ scheme: "upto" })).toEqual([]);
      expect(await of({ network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" })).toHaveLength(2);
      expect(await of({ extensions: "bazaar" })).toHaveLength(2);
      expect(await of({ extensions: "baz" })).toEqual([]);
      expect(await of({ payees: { payTos: [], resources: ["https://f.example.com/quote"] } })).toEqual(["https://f.example.com/quote"]);
      expect(await of({ payees: { payTos: [], resources: [] } })).toEqual([]);
      expect(await of({ words: ["equity", "research"] })).toEqual(["https://f.example.com/mcp"]);
      expect(await of({ words: ["markets"] })).toEqual(["https://f.example.com/quote"]);
      expect(await of({ words: ["equity", "markets"] })).toEqual([]);
      // A LIKE wildcard in a word is a plain character, not a pattern.
      expect(await of({ words: ["%"] })).toEqual([]);

      const first = await store.list({ payTo }, { limit: 1, offset: 0 });
      const second = await store.list({ payTo }, { limit: 1, offset: 1 });
      expect(first.total).toBe(2);
      expect([first.items[0]?.resource, second.items[0]?.resource].sort()).toEqual(["https://f.example.com/mcp", "https://f.example.com/quote"]);
    });
  });
}

describeDiscoveryStore("PGlite (real, in memory)", () => openStore({ inMemory: true }));

const gate = await postgresGate("tests/discovery");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");
if (gate.run) {
  const database = useTestDatabase();
  describeDiscoveryStore("PostgreSQL (real server)", () => openStore({ databaseUrl: database().url, maxConnections: 4 }));
}
