import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { agentCatalogWork, buildAgentCatalog, type AgentCatalog, type AgentFilter } from "../../../src/domain/registry/agent-catalog.ts";
import type { AgentRecord } from "../../../src/domain/registry/agent-record.ts";
import { decodeAgentCursor, encodeAgentCursor } from "../../../src/domain/registry/agent-cursor.ts";
import type { AgentKey } from "../../../src/domain/registry/agent-order.ts";
import { categoryHash } from "../../../src/domain/registry/categories.ts";
import { finishNow } from "../../../src/domain/registry/sliced-work.ts";
import { agentIdentity, hashBytes, testAddress } from "../../registry/support/registry-fixtures.ts";

function record(n: number, overrides: Parameters<typeof agentIdentity>[1] = {}): AgentRecord {
  return { address: testAddress(9, n), identity: agentIdentity(n, overrides) };
}

/** Follows cursors to the end; returns the mints in the order served. */
function pageThrough(catalog: () => AgentCatalog, limit: number, filter: AgentFilter = {}): string[] {
  const seen: string[] = [];
  let after: AgentKey | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = catalog().page({ ...filter, limit, ...(after ? { after } : {}) });
    seen.push(...page.items.map((r) => r.identity.nftMint));
    if (!page.nextKey) return seen;
    expect(page.items.length).toBe(limit);
    after = page.nextKey;
  }
  throw new Error("paging did not end");
}

function expectedOrder(records: readonly AgentRecord[]): string[] {
  return [...records]
    .sort((a, b) =>
      a.identity.updatedAt !== b.identity.updatedAt
        ? Number(b.identity.updatedAt - a.identity.updatedAt)
        : b.identity.nftMint < a.identity.nftMint ? -1 : b.identity.nftMint > a.identity.nftMint ? 1 : 0,
    )
    .map((r) => r.identity.nftMint);
}

describe("agent catalog (pure read model)", () => {
  // Shared timestamps force the nftMint tie-break.
  const records = Array.from({ length: 37 }, (_, n) => record(n, { updatedAt: 1_700_000_000n + BigInt(n % 5) }));

  test("serves everything once, in updatedAt desc then nftMint desc order, at several page sizes", () => {
    const catalog = buildAgentCatalog(records);
    const expected = expectedOrder(records);
    for (const limit of [1, 2, 5, 7, 36, 37, 100]) {
      expect(pageThrough(() => catalog, limit)).toEqual(expected);
    }
  });

  test("filters combine and each page only holds matches", () => {
    const mixed = records.map((r, n) =>
      n % 3 === 0 ? { ...r, identity: { ...r.identity, active: false, metadataUri: `HTTPS://Mirror.Example/${n}` } } : r,
    );
    const catalog = buildAgentCatalog(mixed);
    const owner = testAddress(2, 1);
    const cases: [AgentFilter, (r: AgentRecord) => boolean][] = [
      [{ active: false }, (r) => !r.identity.active],
      [{ owner }, (r) => r.identity.owner === owner],
      [{ categoryHash: categoryHash("defi") }, (r) => Number(r.identity.createdAt % 2n) === 0],
      [{ q: "mirror.EXAMPLE" }, (r) => r.identity.metadataUri.toLowerCase().includes("mirror.example")],
      [{ active: true, owner, categoryHash: categoryHash("trading") }, (r) => r.identity.active && r.identity.owner === owner && Number(r.identity.createdAt % 2n) === 1],
      [{ owner: testAddress(2, 99) }, () => false],
    ];
    for (const [filter, predicate] of cases) {
      const expected = expectedOrder(mixed.filter(predicate));
      for (const limit of [1, 3, 20]) expect(pageThrough(() => catalog, limit, filter)).toEqual(expected);
    }
  });

  test("cursor is stable while data changes: unchanged agents are never repeated or skipped", () => {
    let current = records;
    let catalog = buildAgentCatalog(current);
    const seen: string[] = [];
    let after: AgentKey | undefined;
    let round = 0;
    const changed = new Set<string>();
    for (;;) {
      const page = catalog.page({ limit: 4, ...(after ? { after } : {}) });
      seen.push(...page.items.map((r) => r.identity.nftMint));
      if (!page.nextKey) break;
      after = page.nextKey;
      // Between pages: a new agent appears, one agent is updated (moves to the top), one vanishes.
      round++;
      const bumped = current[(round * 7) % current.length] as AgentRecord;
      changed.add(bumped.identity.nftMint);
      const removed = current[(round * 11) % current.length] as AgentRecord;
      changed.add(removed.identity.nftMint);
      current = [
        ...current
          .filter((r) => r !== removed)
          .map((r) => (r === bumped ? { ...r, identity: { ...r.identity, updatedAt: 1_800_000_000n + BigInt(round) } } : r)),
        record(1000 + round, { updatedAt: 1_900_000_000n }),
      ];
      catalog = buildAgentCatalog(current);
    }
    expect(new Set(seen).size).toBe(seen.length);
    const unchanged = records.map((r) => r.identity.nftMint).filter((m) => !changed.has(m));
    for (const mint of unchanged) expect(seen).toContain(mint);
  });

  test("get, ownedBy and duplicate mints (newer account wins)", () => {
    const older = record(3, { updatedAt: 10n });
    const newer = { address: testAddress(9, 333), identity: { ...older.identity, updatedAt: 20n } };
    const catalog = buildAgentCatalog([older, newer, record(4)]);
    expect(catalog.size).toBe(2);
    expect(catalog.get(older.identity.nftMint)?.address).toBe(newer.address);
    expect(catalog.get(testAddress(1, 999))).toBeUndefined();
    expect(catalog.ownedBy(older.identity.owner).map((r) => r.identity.nftMint)).toEqual([older.identity.nftMint]);
  });
});

/** A small deterministic generator, so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const URI_PARTS = ["https://", "ipfs://Qm", "Agents.Example/", "mirror.example/", "İstanbul/", "café/", "ＡＢ/", "x", "77/", "/7", "card.json"];
const TAG_NAMES = ["defi", "trading", "data", "custom-tag"];

function randomRecord(next: () => number, n: number, version: number): AgentRecord {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const uri = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(URI_PARTS)).join("") + String(n % 50);
  return record(n, {
    owner: testAddress(2, Math.floor(next() * 6)),
    metadataUri: uri,
    active: next() < 0.8,
    tags: Array.from({ length: Math.floor(next() * 3) }, () => hashBytes(pick(TAG_NAMES))),
    updatedAt: 1_700_000_000n + BigInt(Math.floor(next() * 40) + version),
  });
}

/** The matches of `filter` by brute force, in list order: what every page sequence must add up to. */
function bruteForce(records: readonly AgentRecord[], filter: AgentFilter): string[] {
  const q = filter.q?.toLowerCase();
  return expectedOrder(
    records.filter(
      (r) =>
        (filter.owner === undefined || r.identity.owner === filter.owner) &&
        (filter.active === undefined || r.identity.active === filter.active) &&
        (filter.categoryHash === undefined || r.identity.tags.some((t) => Buffer.from(t).toString("hex") === filter.categoryHash)) &&
        (q === undefined || r.identity.metadataUri.toLowerCase().includes(q)),
    ),
  );
}

describe("agent catalog: q through the n-gram index, and refreshes that update the previous catalog", () => {
  const queries = ["ht", "77", "/7", "7/", "77/", "EXAMPLE/", "agents.example/mirror", "ipfs://qm", "i̇stanbul", "İstanbul", "CAFÉ", "ａｂ/", "zz", "zzz", "x7", "json"];

  test("q answers exactly what a substring scan of the lower-cased URIs answers, alone and combined", () => {
    const next = random(7);
    const records = Array.from({ length: 400 }, (_, n) => randomRecord(next, n, 0));
    const catalog = buildAgentCatalog(records);
    for (const q of queries) {
      for (const filter of [{ q }, { q, active: true }, { q, owner: testAddress(2, 3) }, { q, categoryHash: categoryHash("defi") }]) {
        const expected = bruteForce(records, filter);
        for (const limit of [1, 7, 100]) expect(pageThrough(() => catalog, limit, filter)).toEqual(expected);
      }
    }
  });

  test("a refresh with no changed record returns the same catalog", () => {
    const records = Array.from({ length: 50 }, (_, n) => randomRecord(random(n), n, 0));
    const catalog = buildAgentCatalog(records);
    expect(finishNow(agentCatalogWork([...records].reverse(), catalog))).toBe(catalog);
  });

  test("a catalog updated from the previous one over 100 refreshes (changes, additions, removals; the base rebuilt when the overlay grows) serves what a fresh build serves", () => {
    const next = random(11);
    let records = Array.from({ length: 300 }, (_, n) => randomRecord(next, n, 0));
    let catalog = buildAgentCatalog(records);
    let nextMint = 300;
    for (let round = 1; round <= 100; round++) {
      const changes = 1 + Math.floor(next() * 20);
      const updated = [...records];
      for (let c = 0; c < changes; c++) {
        const at = Math.floor(next() * updated.length);
        const roll = next();
        const current = updated[at] as AgentRecord;
        if (roll < 0.6) updated[at] = randomRecord(next, Number(current.identity.createdAt - 1_700_000_000n), round);
        else if (roll < 0.8) updated.splice(at, 1);
        else updated.push(randomRecord(next, nextMint++, round));
      }
      // Unchanged accounts keep their record objects, as the decode cache hands them over.
      records = updated;
      catalog = finishNow(agentCatalogWork(records, catalog));
      const fresh = buildAgentCatalog(records.map((r) => ({ ...r })));
      expect(catalog.size).toBe(fresh.size);
      const owner = testAddress(2, round % 6);
      for (const filter of [{}, { active: false }, { owner }, { categoryHash: categoryHash("data") }, { q: "77" }, { q: "example/" }, { q: "/7", active: true, owner }]) {
        const expected = bruteForce(records, filter);
        expect(pageThrough(() => fresh, 13, filter)).toEqual(expected);
        expect(pageThrough(() => catalog, 13, filter)).toEqual(expected);
      }
      for (const r of records) expect(catalog.get(r.identity.nftMint)).toBe(r);
      expect(catalog.ownedBy(owner).map((r) => r.identity.nftMint).sort()).toEqual(records.filter((r) => r.identity.owner === owner).map((r) => r.identity.nftMint).sort());
    }
  });
});

describe("agent cursor (opaque keyset token)", () => {
  test("round-trips and rejects anything it did not issue", () => {
    const key = { updatedAt: 1_700_000_123n, nftMint: testAddress(1, 5) as string };
    const cursor = encodeAgentCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeAgentCursor(cursor)).toEqual(key);
    expect(decodeAgentCursor(encodeAgentCursor({ updatedAt: -(2n ** 63n), nftMint: key.nftMint }))?.updatedAt).toBe(-(2n ** 63n));
    const forged = (text: string) => btoa(text).replaceAll("=", "");
    for (const bad of ["", "not base64!", "YQ", forged("a1:12:notanaddress"), forged(`a2:12:${key.nftMint}`), forged(`a1:1.5:${key.nftMint}`), forged(`a1:99999999999999999999:${key.nftMint}`), forged(`a1:1:${key.nftMint}:x`), "A".repeat(300)]) {
      expect(decodeAgentCursor(bad)).toBeNull();
    }
  });

  test("a cursor for an agent that disappeared still continues after its position", () => {
    const records = Array.from({ length: 10 }, (_, n) => record(n));
    const first = buildAgentCatalog(records).page({ limit: 3 });
    const gone = first.items[2]?.identity.nftMint as Address;
    const page = buildAgentCatalog(records.filter((r) => r.identity.nftMint !== gone)).page({ limit: 3, after: first.nextKey as AgentKey });
    expect(page.items.map((r): string => r.identity.nftMint)).toEqual(expectedOrder(records).slice(3, 6));
  });
});
