/**
 * Feedback detail URIs over the JSON-RPC path. The x84 program cannot execute in the embedded
 * ledger, so the node is msw answering with recorded responses in the exact shape of a Solana RPC
 * (getProgramAccounts, getSignaturesForAddress, getTransaction `json` of a v0 give_feedback
 * transaction built from our own instruction codec). Real: kit's RPC client inside the RPC ledger
 * adapter, the agent index, the background reader, the SQL store on PGlite and the registry routes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Address, Signature } from "@solana/kit";
import { Elysia } from "elysia";
import { HttpResponse, RequestHandler, delay, getResponse, http, passthrough } from "msw";
import { setupServer } from "msw/node";
import { systemClock, type Clock } from "../../src/application/ports/clock.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import type { TransactionHistory } from "../../src/application/ports/transaction-history.ts";
import { createFeedbackDetailBackfill, type FeedbackDetailBackfill } from "../../src/application/registry/feedback-detail-backfill.ts";
import { encodeAgentIdentity, type AgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { encodeFeedbackEntry, type FeedbackEntry } from "../../src/domain/registry/feedback-entry.ts";
import type { GiveFeedbackArgs } from "../../src/domain/registry/give-feedback.ts";
import { findAgentPda, findFeedbackPda } from "../../src/domain/registry/pdas.ts";
import { errorLayer } from "../../src/http/error-layer.ts";
import { registryRoutes } from "../../src/http/registry/registry-routes.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { createAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { openStore, type OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlFeedbackDetailUriStore } from "../../src/infrastructure/store/sql-feedback-detail-uri-store.ts";
import { createManualClock } from "./support/manual-clock.ts";
import {
  giveFeedbackTransactionJson,
  memcmpFilters,
  programAccount,
  recordedRpcHandler,
  recordedSignature,
  signatureInfo,
  type Json,
  type RpcCall,
} from "./support/recorded-rpc.ts";
import { agentIdentity, feedbackEntry, hashBytes, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";
import { startService } from "../settlement/support/service-harness.ts";

const RPC_URL = "https://rpc.recorded.test/";
const OTHER_PROGRAM = testAddress(8, 8);

/** What the recorded node knows; tests fill it. */
const accounts: { pubkey: Address; data: Uint8Array }[] = [];
const signaturesByAddress = new Map<string, Json[]>();
const transactions = new Map<string, Json>();
const calls: RpcCall[] = [];
let failHistory: "none" | "http-503" = "none";
let transactionDelayMs = 0;
let inFlight = 0;
let maxInFlight = 0;

const server = setupServer(
  recordedRpcHandler(
    RPC_URL,
    {
      getProgramAccounts: (params) => {
        const filters = memcmpFilters(params);
        return accounts
          .filter(({ data }) => filters.every(({ offset, bytes }) => bytes.every((b, i) => data[offset + i] === b)))
          .map(({ pubkey, data }) => programAccount(pubkey, PROGRAM_ID, data));
      },
      getSignaturesForAddress: async (params) => {
        if (failHistory === "http-503") return new HttpResponse("upstream unavailable", { status: 503 });
        const options = (params[1] ?? {}) as { before?: string; limit?: number };
        const all = signaturesByAddress.get(String(params[0])) ?? [];
        const start = options.before ? all.findIndex((s) => (s as { signature: string }).signature === options.before) + 1 : 0;
        return all.slice(start, start + (options.limit ?? 1000));
      },
      getTransaction: async (params) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          if (transactionDelayMs > 0) await delay(transactionDelayMs);
          return transactions.get(String(params[0])) ?? null;
        } finally {
          inFlight--;
        }
      },
    },
    calls,
  ),
);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  accounts.length = 0;
  signaturesByAddress.clear();
  transactions.clear();
  calls.length = 0;
  portCalls.length = 0;
  failHistory = "none";
  transactionDelayMs = 0;
  maxInFlight = 0;
});
afterAll(() => server.close());

/** One PGlite database for the file (opening one takes seconds); each test uses its own addresses. */
let store: OpenedStore;
beforeAll(async () => {
  store = await openStore({ inMemory: true });
}, 30_000);
afterAll(async () => {
  await store?.close();
});

function argsFor(entry: FeedbackEntry, detailUri: string): GiveFeedbackArgs {
  return {
    score: entry.score,
    tag1: entry.tag1,
    tag2: entry.tag2,
    detailUri,
    detailHash: new Uint8Array(32).fill(9),
    feedbackAuth: new Uint8Array(64).fill(3),
    feedbackNonce: entry.createdAt,
  };
}

async function seedAgent(agent: AgentIdentity): Promise<void> {
  const [pda] = await findAgentPda(PROGRAM_ID, agent.nftMint);
  accounts.push({ pubkey: pda, data: padded(encodeAgentIdentity(agent), 600) });
}

/** Puts the entry on the node and returns its PDA. */
async function seedFeedback(entry: FeedbackEntry): Promise<Address> {
  const [pda] = await findFeedbackPda(PROGRAM_ID, entry.nftMint, entry.reviewer, entry.createdAt);
  accounts.push({ pubkey: pda, data: encodeFeedbackEntry(entry) });
  return pda;
}

/** Records `entry`'s creation by give_feedback and lists it as the address's only transaction. */
async function recordCreation(entry: FeedbackEntry, address: Address, detailUri: string, label: number): Promise<Signature> {
  const signature = recordedSignature(label);
  transactions.set(signature, await giveFeedbackTransactionJson({ programId: PROGRAM_ID, signature, slot: 400_000_000 + label, reviewer: entry.reviewer, nftMint: entry.nftMint, feedbackEntry: address, args: argsFor(entry, detailUri) }));
  signaturesByAddress.set(address, [signatureInfo(signature, 400_000_000 + label)]);
  return signature;
}

type Rig = Readonly<{ backfill: FeedbackDetailBackfill; refresh(): Promise<void>; feedbackOf(mint: Address): Promise<{ address: string; detailUri: string }[]> }>;

/** When the reader called the history port (before the request left), for the rate checks. */
const portCalls: number[] = [];

function rig(store: OpenedStore, clock: Clock, options: Partial<Parameters<typeof createFeedbackDetailBackfill>[0]> = {}): Rig {
  const rpc = createRpcLedger({ url: RPC_URL });
  const history: TransactionHistory = {
    getSignaturesForAddress: (...args) => {
      portCalls.push(performance.now());
      return rpc.getSignaturesForAddress(...args);
    },
    getTransaction: (...args) => {
      portCalls.push(performance.now());
      return rpc.getTransaction(...args);
    },
  };
  const backfill = createFeedbackDetailBackfill({
    history,
    store: createSqlFeedbackDetailUriStore(store.executor),
    programId: PROGRAM_ID,
    clock,
    logger: silentLogger,
    callsPerSecond: 1_000,
    ...options,
  });
  const index = createAgentIndex({ ledger: rpc, clock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feedbackDetails: backfill });
  const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES) }));
  return {
    backfill,
    // Full reads run on the index's timer (every TTL without a feed); the test runs them when its clock says so.
    refresh: () => index.refresh(),
    async feedbackOf(mint) {
      const response = await app.handle(new Request(`http://registry.test/agents/${mint}/feedback?includeRevoked=true`));
      expect(response.status).toBe(200);
      return (await response.json()) as { address: string; detailUri: string }[];
    },
  };
}

const historyCalls = () => calls.filter((c) => c.method === "getSignaturesForAddress" || c.method === "getTransaction");
const uriByAddress = (items: readonly { address: string; detailUri: string }[]) => Object.fromEntries(items.map((f) => [f.address, f.detailUri]));

describe("feedback detail URIs from give_feedback transactions (recorded RPC responses via msw)", () => {
  test("served as \"\" at first, then read in the background from the creating transaction, stored, and served from the store after a restart", async () => {
    const clock = createManualClock();
    const star = agentIdentity(0);
    await seedAgent(star);
    const paid = feedbackEntry(star.nftMint, 0, { tag1: hashBytes("defi") });
    const plain = feedbackEntry(star.nftMint, 1);
    const orphan = feedbackEntry(star.nftMint, 2);
    const [paidPda, plainPda, orphanPda] = [await seedFeedback(paid), await seedFeedback(plain), await seedFeedback(orphan)];

    // paid: its history, newest first, is a later revoke, the creation, a failed give_feedback and a
    // forged transaction that names the address first (another program, give_feedback-looking data).
    const creation = await recordCreation(paid, paidPda, "https://reviews.example/paid.json", 10);
    const forged = recordedSignature(1);
    const failed = recordedSignature(5);
    const revoke = recordedSignature(20);
    const base = { programId: PROGRAM_ID, reviewer: paid.reviewer, nftMint: paid.nftMint, feedbackEntry: paidPda };
    transactions.set(forged, await giveFeedbackTransactionJson({ ...base, signature: forged, slot: 400_000_001, invokedProgram: OTHER_PROGRAM, args: argsFor(paid, "https://attacker.example/forged") }));
    transactions.set(failed, await giveFeedbackTransactionJson({ ...base, signature: failed, slot: 400_000_005, args: argsFor(paid, "https://attacker.example/failed"), err: { InstructionError: [1, { Custom: 6003 }] } }));
    signaturesByAddress.set(paidPda, [
      signatureInfo(revoke, 400_000_020),
      signatureInfo(creation, 400_000_010),
      signatureInfo(failed, 400_000_005, { InstructionError: [1, { Custom: 6003 }] }),
      signatureInfo(forged, 400_000_001),
    ]);
    await recordCreation(plain, plainPda, "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/review ✓.json", 11);
    // orphan: a node without its history (pruned, or the entry was written another way).

    const first = rig(store, clock);
    expect(uriByAddress(await first.feedbackOf(star.nftMint))).toEqual({ [paidPda]: "", [plainPda]: "", [orphanPda]: "" });
    await first.backfill.idle();
    expect(uriByAddress(await first.feedbackOf(star.nftMint))).toEqual({
      [paidPda]: "https://reviews.example/paid.json",
      [plainPda]: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/review ✓.json",
      [orphanPda]: "",
    });

    // One history page per entry; the forged and the creating transaction of `paid` (oldest first,
    // the failed one skipped by its listed error), the creation of `plain`; nothing of `orphan`.
    const fetched = historyCalls();
    expect(fetched.filter((c) => c.method === "getSignaturesForAddress").map((c) => c.params[0]).sort()).toEqual([paidPda, plainPda, orphanPda].sort());
    expect(fetched.filter((c) => c.method === "getSignaturesForAddress").every((c) => (c.params[1] as { commitment: string }).commitment === "confirmed")).toBe(true);
    expect(fetched.filter((c) => c.method === "getTransaction").map((c) => c.params[0]).sort()).toEqual([forged, creation, recordedSignature(11)].sort());
    expect(fetched.filter((c) => c.method === "getTransaction").every((c) => JSON.stringify(c.params[1]) === JSON.stringify({ encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" }))).toBe(true);
    const rows = await store.executor.query("SELECT address, detail_uri, signature FROM feedback_detail_uris WHERE address IN ($1, $2, $3) ORDER BY address", [paidPda, plainPda, orphanPda]);
    expect(rows).toEqual(
      [
        { address: paidPda, detail_uri: "https://reviews.example/paid.json", signature: creation },
        { address: plainPda, detail_uri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/review ✓.json", signature: recordedSignature(11) },
      ].sort((a, b) => (a.address < b.address ? -1 : 1)),
    );

    // The next refresh asks nothing for known entries, nor for `orphan` while it backs off (60 s).
    calls.length = 0;
    clock.advance(30_000);
    await first.refresh();
    await first.feedbackOf(star.nftMint);
    await first.backfill.idle();
    expect(historyCalls()).toEqual([]);
    clock.advance(31_000);
    await first.refresh();
    await first.feedbackOf(star.nftMint);
    await first.backfill.idle();
    expect(historyCalls().map((c) => [c.method, c.params[0]])).toEqual([["getSignaturesForAddress", orphanPda]]);
    await first.backfill.stop();

    // A restarted service (same table, empty memory) finds the URIs in the store: no RPC call for them.
    calls.length = 0;
    const restarted = rig(store, createManualClock());
    await restarted.feedbackOf(star.nftMint);
    await restarted.backfill.idle();
    expect(uriByAddress(await restarted.feedbackOf(star.nftMint))).toMatchObject({ [paidPda]: "https://reviews.example/paid.json" });
    expect(historyCalls().map((c) => [c.method, c.params[0]])).toEqual([["getSignaturesForAddress", orphanPda]]);
    await restarted.backfill.stop();
  });

  test("a history longer than one page is paged with `before` to its oldest signature", async () => {
    const star = agentIdentity(1);
    await seedAgent(star);
    const entry = feedbackEntry(star.nftMint, 0);
    const pda = await seedFeedback(entry);
    const creation = await recordCreation(entry, pda, "https://reviews.example/long.json", 3);
    const noise = Array.from({ length: 1_500 }, (_, n) => signatureInfo(recordedSignature(1_000 + n), 400_010_000 - n, { InstructionError: [0, "InvalidAccountData"] }));
    signaturesByAddress.set(pda, [...noise, signatureInfo(creation, 400_000_003)]);

    const r = rig(store, createManualClock());
    await r.feedbackOf(star.nftMint);
    await r.backfill.idle();
    expect(uriByAddress(await r.feedbackOf(star.nftMint))).toEqual({ [pda]: "https://reviews.example/long.json" });
    const pages = calls.filter((c) => c.method === "getSignaturesForAddress").map((c) => c.params[1] as { before?: string; limit: number });
    expect(pages.map((p) => [p.limit, p.before])).toEqual([
      [1000, undefined],
      [1000, recordedSignature(1_000 + 999)],
    ]);
    expect(calls.filter((c) => c.method === "getTransaction").map((c) => c.params[0])).toEqual([creation]);
    await r.backfill.stop();
  });

  test("bounded: calls spaced by the rate limit, at most `concurrency` entries at once", async () => {
    const star = agentIdentity(2);
    await seedAgent(star);
    for (let n = 0; n < 10; n++) {
      const entry = feedbackEntry(star.nftMint, n, { reviewer: testAddress(4, 100 + n) });
      await recordCreation(entry, await seedFeedback(entry), `https://reviews.example/${n}`, 100 + n);
    }
    transactionDelayMs = 60;
    const r = rig(store, systemClock, { callsPerSecond: 50, concurrency: 3 });
    await r.feedbackOf(star.nftMint);
    await r.backfill.idle();
    expect((await r.feedbackOf(star.nftMint)).every((f) => f.detailUri.startsWith("https://reviews.example/"))).toBe(true);

    expect(historyCalls().length).toBe(20);
    // 50 calls/s = one slot every 20 ms: the k-th call starts no earlier than k slots after the
    // first, however the event loop is loaded (a stall only makes calls later).
    expect(portCalls.length).toBe(20);
    const first = portCalls[0] as number;
    portCalls.forEach((at, k) => expect(at - first).toBeGreaterThanOrEqual(k * 20 - 2));
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBeGreaterThanOrEqual(2);
    await r.backfill.stop();
  });

  test("wired by buildService when SOLANA_RPC_URL is set: the whole service fills detailUri in the background", async () => {
    const star = agentIdentity(4);
    await seedAgent(star);
    const entry = feedbackEntry(star.nftMint, 0);
    await recordCreation(entry, await seedFeedback(entry), "https://reviews.example/wired.json", 400);
    // The service reads program accounts in a Worker, which msw cannot reach: the recorded node is
    // also served over a real socket, answered by the same handlers.
    const relay = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) =>
        (await getResponse(server.listHandlers().filter((h) => h instanceof RequestHandler), new Request(RPC_URL, { method: request.method, headers: request.headers, body: await request.text() }))) ??
        new Response("not recorded", { status: 500 }),
    });
    server.use(http.all(`${relay.url.href}*`, () => passthrough()));
    const service = await startService({ SOLANA_RPC_URL: relay.url.href, ROLE: "registry" });
    try {
      const read = async () => {
        const response = await service.registryApp.handle(new Request(`http://registry.test/agents/${star.nftMint}/feedback`));
        return ((await response.json()) as { detailUri: string }[]).map((f) => f.detailUri);
      };
      expect(await read()).toEqual([""]);
      const deadline = Date.now() + 5_000;
      let served = await read();
      while (served[0] === "" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        served = await read();
      }
      expect(served).toEqual(["https://reviews.example/wired.json"]);
      const [row] = await service.store.executor.query("SELECT detail_uri FROM feedback_detail_uris");
      expect(row).toEqual({ detail_uri: "https://reviews.example/wired.json" });
    } finally {
      await service.dispose();
      await relay.stop(true);
    }
  }, 30_000);

  test("a failing node ends the pass after at most `concurrency` calls; entries come back after a later refresh once it answers", async () => {
    const clock = createManualClock();
    const star = agentIdentity(3);
    await seedAgent(star);
    const addresses: Address[] = [];
    for (let n = 0; n < 6; n++) {
      const entry = feedbackEntry(star.nftMint, n, { reviewer: testAddress(4, 200 + n) });
      const pda = await seedFeedback(entry);
      addresses.push(pda);
      await recordCreation(entry, pda, `https://reviews.example/recovered/${n}`, 200 + n);
    }
    failHistory = "http-503";
    const r = rig(store, clock, { concurrency: 2 });
    expect((await r.feedbackOf(star.nftMint)).map((f) => f.detailUri)).toEqual(Array(6).fill(""));
    await r.backfill.idle();
    expect(historyCalls().length).toBeLessThanOrEqual(2);
    expect((await r.feedbackOf(star.nftMint)).map((f) => f.detailUri)).toEqual(Array(6).fill(""));

    failHistory = "none";
    clock.advance(61_000); // past the TTL and the failed entries' first backoff
    await r.refresh();
    await r.feedbackOf(star.nftMint);
    await r.backfill.idle();
    const served = uriByAddress(await r.feedbackOf(star.nftMint));
    expect(addresses.map((a) => served[a])).toEqual(addresses.map((_, n) => `https://reviews.example/recovered/${n}`));
    await r.backfill.stop();
  });
});
