import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { CatalogueQuery, DiscoveryCatalogue } from "../../../src/application/discovery/discovery-catalogue.ts";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { RegistryIndexUnavailableError } from "../../../src/application/ports/agent-index.ts";
import { CodedError } from "../../../src/domain/coded-error.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import { discoveryRoutes } from "../../../src/http/facilitator/discovery-routes.ts";
import type { CatalogueEntry } from "../../../src/domain/discovery/catalogue-entry.ts";

const ENTRY: CatalogueEntry = {
  key: "http GET https://a.example.com/x merchant",
  resource: "https://a.example.com/x",
  type: "http",
  operation: "GET",
  payTo: "merchant",
  x402Version: 2,
  description: "x",
  extensions: { bazaar: { info: { input: { type: "http", method: "GET" } }, schema: {} } },
  accepts: [{ scheme: "exact", network: "solana:devnet", asset: "USDC", amount: "10", payTo: "merchant" }],
  firstSettledAt: "2026-11-26T10:00:00.000Z",
  lastSettledAt: "2026-11-26T11:00:00.000Z",
  updatedAt: "2026-11-26T11:30:00.000Z",
};

function appWith(behaviour: "ok" | "index-down" | "store-down" = "ok") {
  const seen: { query: CatalogueQuery; range: { limit: number; offset: number } }[] = [];
  const answer = async (query: CatalogueQuery, range: { limit: number; offset: number }) => {
    seen.push({ query, range });
    if (behaviour === "index-down") throw new RegistryIndexUnavailableError("not loaded");
    if (behaviour === "store-down") throw new CodedError("STORE_UNAVAILABLE", "settlement store unavailable: DATABASE_URL (db.internal:5432/prod): refused");
    return { items: [{ entry: ENTRY, agent: null }], total: 3 };
  };
  const catalogue: DiscoveryCatalogue = { list: answer, search: (query, range) => answer(query, range) };
  const app = new Elysia().use(errorLayer(silentLogger)).use(discoveryRoutes({ catalogue }));
  const get = async (path: string) => {
    const response = await app.handle(new Request(`http://facilitator.test${path}`));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { get, seen };
}

describe("GET /discovery/resources and /discovery/search through app.handle (hand-written catalogue)", () => {
  test("the list answers the Bazaar shape; filters and the page reach the catalogue", async () => {
    const { get, seen } = appWith();
    const { status, body } = await get("/discovery/resources?type=http&payTo=merchant&network=solana:devnet&scheme=exact&extensions=bazaar&category=data&agent=mint&limit=2&offset=1");
    expect(status).toBe(200);
    expect(body).toEqual({
      x402Version: 2,
      items: [
        {
          resource: "https://a.example.com/x",
          type: "http",
          x402Version: 2,
          accepts: ENTRY.accepts,
          lastUpdated: "2026-11-26T11:30:00.000Z",
          description: "x",
          extensions: ENTRY.extensions,
          lastSettledAt: "2026-11-26T11:00:00.000Z",
          agent: null,
        },
      ],
      pagination: { limit: 2, offset: 1, total: 3 },
    });
    expect(seen[0]).toEqual({ query: { type: "http", payTo: "merchant", network: "solana:devnet", scheme: "exact", extensions: "bazaar", category: "data", agent: "mint" }, range: { limit: 2, offset: 1 } });
  });

  test("search answers `resources` with a cursor while more matches follow", async () => {
    const { get, seen } = appWith();
    const first = await get("/discovery/search?query=weather&limit=1");
    expect(first.body).toMatchObject({ x402Version: 2, partialResults: true, pagination: { limit: 1, cursor: "1" } });
    expect((first.body["resources"] as unknown[]).length).toBe(1);
    const last = await get("/discovery/search?query=weather&limit=1&cursor=2");
    expect(last.body).toMatchObject({ partialResults: false, pagination: { limit: 1, cursor: null } });
    expect(seen.map((s) => s.range.offset)).toEqual([0, 2]);
  });

  test("malformed queries are 400 in the error shape: limit, offset, type, a missing or empty search query, a foreign cursor", async () => {
    const { get } = appWith();
    for (const path of [
      "/discovery/resources?limit=0",
      "/discovery/resources?limit=101",
      "/discovery/resources?offset=-1",
      "/discovery/resources?offset=10001",
      "/discovery/resources?type=smtp",
      "/discovery/search",
      "/discovery/search?query=",
      "/discovery/search?query=x&cursor=abc",
    ]) {
      const { status, body } = await get(path);
      expect([path, status, body["statusCode"], body["error"]]).toEqual([path, 400, 400, "Bad Request"]);
    }
  });

  test("a registry index not loaded yet, or a store that cannot answer, is 503 and names no database", async () => {
    const index = await appWith("index-down").get("/discovery/resources?category=data");
    expect(index.status).toBe(503);
    const store = await appWith("store-down").get("/discovery/resources");
    expect(store.status).toBe(503);
    expect(JSON.stringify(store.body)).not.toContain("db.internal");
  });
});
