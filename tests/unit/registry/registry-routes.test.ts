import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { Elysia } from "elysia";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { encodeAgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { encodeAgentService } from "../../../src/domain/registry/agent-service.ts";
import { categoryHash, createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { encodeFeedbackEntry } from "../../../src/domain/registry/feedback-entry.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import { registryRoutes } from "../../../src/http/registry/registry-routes.ts";
import { registryCors } from "../../../src/http/registry/registry-cors.ts";
import { createAgentIndex } from "../../../src/infrastructure/registry/ledger-agent-index.ts";
import { createFakeLedger } from "../../registry/support/fake-ledger.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";
import { agentIdentity, agentService, feedbackEntry, hashBytes, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";


/** `before` changes the ledger before the index loads (it loads at once, then follows writes). */
function setup(before: (ledger: ReturnType<typeof createFakeLedger>, star: string) => void = () => {}) {
  const ledger = createFakeLedger(PROGRAM_ID);
  for (let n = 0; n < 25; n++) {
    const tags = n === 0 ? [hashBytes("defi"), hashBytes("not-a-known-category")] : undefined;
    ledger.put(testAddress(9, n), padded(encodeAgentIdentity(agentIdentity(n, tags ? { tags } : {})), 600));
  }
  const star = agentIdentity(0).nftMint;
  ledger.put(testAddress(6, 1), encodeFeedbackEntry(feedbackEntry(star, 1)));
  ledger.put(testAddress(6, 2), encodeFeedbackEntry(feedbackEntry(star, 2)));
  ledger.put(testAddress(6, 3), encodeFeedbackEntry(feedbackEntry(star, 4, { revoked: true })));
  ledger.put(testAddress(7, 1), encodeAgentService(agentService(star, "mcp", { createdAt: 5n })));
  ledger.put(testAddress(7, 2), encodeAgentService(agentService(star, "a2a", { createdAt: 6n, active: false })));
  before(ledger, star);
  const index = createAgentIndex({ ledger, clock: createManualClock(), programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger });
  const app = new Elysia()
    .use(errorLayer(silentLogger))
    .use(registryCors({ allowedOrigins: [] }))
    .use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }));
  const get = async (path: string, init: RequestInit = {}) => {
    const response = await app.handle(new Request(`http://registry.test${path}`, init));
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === "" ? null : JSON.parse(text) };
  };
  return { get, star, ledger };
}

describe("registry routes via app.handle over a fake Ledger (mock)", () => {
  test("GET /agents: default page of 20, spec Agent shape, cursor to the rest", async () => {
    const { get } = setup();
    const first = await get("/agents");
    expect(first.status).toBe(200);
    expect(first.body.data.length).toBe(20);
    expect(first.body.cursor.hasMore).toBe(true);
    expect(typeof first.body.cursor.next).toBe("string");
    const agent = first.body.data[0];
    expect(Object.keys(agent).sort()).toEqual(["active", "categories", "metadataUri", "nftMint", "owner", "reputation"]);
    expect(Object.keys(agent.reputation).sort()).toEqual(["unverifiedAvgScore", "unverifiedCount", "validationCount", "verifiedAvgScore", "verifiedCount"]);
    const rest = await get(`/agents?cursor=${first.body.cursor.next}`);
    expect(rest.body.data.length).toBe(5);
    expect(rest.body.cursor).toEqual({ next: null, hasMore: false });
    const all = [...first.body.data, ...rest.body.data].map((a: { nftMint: string }) => a.nftMint);
    expect(new Set(all).size).toBe(25);
  });

  test("filters: q, category (name), active, owner", async () => {
    const { get } = setup();
    expect((await get("/agents?q=AGENTS.EXAMPLE/1")).body.data.length).toBe(11); // 1, 10..19
    expect((await get("/agents?category=trading&limit=100")).body.data.every((a: { categories: string[] }) => a.categories.includes("trading"))).toBe(true);
    expect((await get("/agents?category=trading&limit=100")).body.data.length).toBe(12);
    expect((await get(`/agents?category=${categoryHash("defi")}&limit=100`)).body.data.length).toBe(13);
    expect((await get("/agents?active=false")).body.data).toEqual([]);
    expect((await get(`/agents?owner=${testAddress(2, 3)}&limit=100`)).body.data.length).toBe(6);
    const star = (await get(`/agents?q=agents.example/0/`)).body.data[0];
    expect(star.categories).toEqual(["defi", categoryHash("not-a-known-category")]);
  });

  test("bad parameters are 400 in the error shape, never 422", async () => {
    const { get } = setup();
    const bad = ["limit=0", "limit=101", "limit=abc", "limit=1.5", "limit=-1", "q=a", "active=yes", "owner=not-base58", "cursor=garbage!", "category=", `q=${"x".repeat(201)}`];
    for (const query of bad) {
      const { status, body } = await get(`/agents?${query}`);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(body.statusCode).toBe(400);
      expect(body.error).toBe("Bad Request");
      expect(Array.isArray(body.message) || typeof body.message === "string").toBe(true);
    }
    const several = await get("/agents?limit=0&active=maybe");
    expect(several.body.message.length).toBe(2);
  });

  test("GET /agents/categories lists name and SHA-256 hash", async () => {
    const { get } = setup();
    const { status, body } = await get("/agents/categories");
    expect(status).toBe(200);
    expect(body.length).toBe(DEFAULT_CATEGORY_NAMES.length);
    expect(body[0]).toEqual({ name: DEFAULT_CATEGORY_NAMES[0], hash: categoryHash(DEFAULT_CATEGORY_NAMES[0] as string) });
  });

  test("GET /agents/:id: detail fields with services; 404 for unknown or malformed ids", async () => {
    const { get, star } = setup();
    const { status, body } = await get(`/agents/${star}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      nftMint: star,
      address: testAddress(9, 0),
      ownerVersion: 1,
      feedbackAuthority: testAddress(3, 0),
      metadataHash: "00".repeat(32),
      tags: ["defi", categoryHash("not-a-known-category")],
      delegationCount: 0,
      createdAt: "2023-11-14T22:13:20.000Z",
      updatedAt: "2023-11-14T22:13:20.000Z",
    });
    expect(body.services.map((s: { serviceType: string }) => s.serviceType)).toEqual(["a2a", "mcp"]);
    for (const id of [testAddress(1, 999), "not-an-address", "0OIl"]) {
      const missing = await get(`/agents/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ statusCode: 404, message: "agent not found", error: "Not Found" });
    }
  });

  test("reputation averages come from sums and counts (0 when count is 0)", async () => {
    const rated = agentIdentity(50, { verifiedFeedbackCount: 4n, verifiedScoreSum: 350n, unverifiedFeedbackCount: 0n, unverifiedScoreSum: 0n, validationCount: 2n });
    const { get } = setup((ledger) => ledger.put(testAddress(9, 50), encodeAgentIdentity(rated)));
    const { body } = await get(`/agents/${rated.nftMint}`);
    expect(body.reputation).toEqual({ verifiedCount: 4, verifiedAvgScore: 87.5, unverifiedCount: 0, unverifiedAvgScore: 0, validationCount: 2 });
  });

  test("GET /agents/:id/feedback: newest first, revoked hidden by default, filters", async () => {
    const { get, star } = setup();
    const all = await get(`/agents/${star}/feedback`);
    expect(all.status).toBe(200);
    expect(all.body.map((f: { createdAt: string }) => f.createdAt)).toEqual(["2023-11-16T02:00:02.000Z", "2023-11-16T02:00:01.000Z"]);
    expect(all.body[0]).toEqual({
      address: testAddress(6, 2),
      reviewer: testAddress(4, 2),
      score: 34,
      detailUri: "",
      tag1: categoryHash("quality"),
      tag2: "",
      authVerified: true,
      hasPaymentProof: true,
      paymentAmount: 3_000_000,
      paymentToken: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      revoked: false,
      createdAt: "2023-11-16T02:00:02.000Z",
    });
    expect(all.body[1]).toMatchObject({ hasPaymentProof: false, paymentAmount: 0, paymentToken: "" });
    expect((await get(`/agents/${star}/feedback?includeRevoked=true`)).body.length).toBe(3);
    expect((await get(`/agents/${star}/feedback?verified=false`)).body.length).toBe(1);
    expect((await get(`/agents/${star}/feedback?reviewer=${testAddress(4, 1)}`)).body.length).toBe(1);
    expect((await get(`/agents/${star}/feedback?verified=1`)).status).toBe(400);
    expect((await get(`/agents/${star}/feedback?reviewer=abc`)).status).toBe(400);
    expect((await get(`/agents/${testAddress(1, 999)}/feedback`)).status).toBe(404);
  });

  test("feedback numbers, tags and times: category names, u64 past 2^53 as the nearest double, i64 times clamped to what ISO-8601 dates hold", async () => {
    const star = agentIdentity(0).nftMint;
    const big = feedbackEntry(star, 8, { tag1: hashBytes("defi"), tag2: hashBytes("speed"), paymentAmount: 2n ** 64n - 1n, createdAt: 1_700_100_100n });
    const zeroPayer = feedbackEntry(star, 9, { hasPaymentProof: true, paymentToken: "11111111111111111111111111111111" as Address, createdAt: 1_700_100_099n });
    const ancient = feedbackEntry(star, 10, { createdAt: -(2n ** 63n) });
    const future = feedbackEntry(star, 11, { createdAt: 2n ** 63n - 1n });
    const { get } = setup((ledger) => {
      ledger.put(testAddress(6, 8), encodeFeedbackEntry(big));
      ledger.put(testAddress(6, 9), encodeFeedbackEntry(zeroPayer));
      ledger.put(testAddress(6, 10), encodeFeedbackEntry(ancient));
      ledger.put(testAddress(6, 11), encodeFeedbackEntry(future));
    });
    const { body } = await get(`/agents/${star}/feedback`);
    const byAddress = new Map(body.map((f: { address: string }) => [f.address, f]));
    expect(byAddress.get(testAddress(6, 8))).toMatchObject({ tag1: "defi", tag2: categoryHash("speed"), paymentAmount: 18_446_744_073_709_551_616, createdAt: "2023-11-16T02:01:40.000Z" });
    expect(byAddress.get(testAddress(6, 9))).toMatchObject({ hasPaymentProof: true, paymentToken: "" });
    expect(byAddress.get(testAddress(6, 10))).toMatchObject({ createdAt: "-271821-04-20T00:00:00.000Z" });
    expect(byAddress.get(testAddress(6, 11))).toMatchObject({ createdAt: "+275760-09-13T00:00:00.000Z" });
    expect(body[0].address).toBe(testAddress(6, 11));
  });

  test("GET /agents/:id/services: filters by type and status, newest first", async () => {
    const { get, star } = setup();
    const all = await get(`/agents/${star}/services`);
    expect(all.body).toEqual([
      { address: testAddress(7, 2), serviceType: "a2a", endpoint: "https://svc.example/a2a", version: "1.0.0", active: false },
      { address: testAddress(7, 1), serviceType: "mcp", endpoint: "https://svc.example/mcp", version: "1.0.0", active: true },
    ]);
    expect((await get(`/agents/${star}/services?serviceType=mcp`)).body.length).toBe(1);
    expect((await get(`/agents/${star}/services?active=false`)).body.length).toBe(1);
    expect((await get(`/agents/${star}/services?serviceType=grpc`)).status).toBe(400);
    expect((await get(`/agents/${testAddress(1, 999)}/services`)).status).toBe(404);
  });

  test("CORS: reads are open to every origin (registry-cors.ts): preflight answered, allow-origin on GET responses including errors", async () => {
    const { get } = setup();
    const preflight = await get("/agents", { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    for (const path of ["/agents", "/agents/categories", "/agents?limit=0", `/agents/${testAddress(1, 999)}`]) {
      expect((await get(path, { headers: { origin: "https://app.example" } })).headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("ledger down before the first load: 503 in the error shape, at once (not after the next attempt)", async () => {
    const { get, ledger } = setup((ledger) => ledger.failWith(new LedgerError("unavailable", "connection refused to http://user:pw@rpc.internal")));
    const { status, body } = await get("/agents");
    // One failed read per kind: the answer did not wait for the retry 5 s later (it once did, when
    // the request came in the gap between the read's failure and the end of its promise chain).
    expect(ledger.calls.length).toBe(3);
    expect(status).toBe(503);
    expect(body.statusCode).toBe(503);
    expect(body.error).toBe("Service Unavailable");
    expect(JSON.stringify(body)).not.toContain("rpc.internal");
  });
});
