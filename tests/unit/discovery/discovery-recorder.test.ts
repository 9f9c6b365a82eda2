import { describe, expect, test } from "bun:test";
import { createDiscoveryRecorder, type DeclarationOutcome } from "../../../src/application/discovery/discovery-recorder.ts";
import type { DeclarationReading } from "../../../src/application/ports/discovery-declarations.ts";
import type { DiscoveryStore } from "../../../src/application/ports/discovery-store.ts";
import type { DiscoveryDeclaration } from "../../../src/domain/discovery/catalogue-entry.ts";
import { silentLogger } from "../../../src/application/ports/logger.ts";

const declaration: DiscoveryDeclaration = {
  resource: "https://api.example.com/weather",
  type: "http",
  operation: "GET",
  x402Version: 2,
  extensions: { bazaar: { info: {}, schema: {} } },
  accept: { scheme: "exact", network: "solana:devnet", asset: "USDC", amount: "1", payTo: "merchant" },
};

/** A hand-written store that records its calls; `fail` makes every write throw. */
function fakeStore(options: { fail?: boolean; known?: boolean; gate?: Promise<void> } = {}) {
  const calls: string[] = [];
  const store: DiscoveryStore = {
    async recordSettled(d) {
      await options.gate;
      calls.push(`settled ${d.resource}`);
      if (options.fail) throw new Error("connection refused");
      return "recorded";
    },
    async refreshSeen(d) {
      calls.push(`seen ${d.resource}`);
      if (options.fail) throw new Error("connection refused");
      return options.known ?? false;
    },
    list: async () => ({ items: [], total: 0 }),
    deleteExpired: async () => 0,
  };
  return { store, calls };
}

function recorderWith(reading: DeclarationReading, store: DiscoveryStore, extra: { maxQueued?: number; maxEntryBytes?: number } = {}) {
  const outcomes: DeclarationOutcome[] = [];
  const recorder = createDiscoveryRecorder({
    read: { read: async () => reading, locate: () => (reading.kind === "valid" ? { ...reading.declaration, payTo: reading.declaration.accept.payTo } : null) },
    store,
    limits: { ttlSeconds: 60, maxEntriesPerPayTo: 10, maxEntryBytes: extra.maxEntryBytes ?? 16_384 },
    logger: silentLogger,
    count: (outcome) => outcomes.push(outcome),
    ...(extra.maxQueued !== undefined ? { maxQueued: extra.maxQueued } : {}),
  });
  return { recorder, outcomes };
}

describe("discovery recorder (after the answer, bounded, never failing a payment)", () => {
  test("a successful settlement records; a valid verify refreshes only a known entry; refused answers are not read", async () => {
    const { store, calls } = fakeStore();
    const { recorder, outcomes } = recorderWith({ kind: "valid", declaration }, store);
    recorder.observe({ kind: "settle", body: {}, ok: true });
    recorder.observe({ kind: "verify", body: {}, ok: true });
    recorder.observe({ kind: "settle", body: {}, ok: false });
    recorder.observe({ kind: "verify", body: {}, ok: false });
    await recorder.idle();
    expect(calls).toEqual([`settled ${declaration.resource}`, `seen ${declaration.resource}`]);
    expect(outcomes).toEqual(["recorded", "unlisted"]);
  });

  test("a declaration the validator had no room for is counted as dropped and writes nothing", async () => {
    const { store, calls } = fakeStore();
    const { recorder, outcomes } = recorderWith({ kind: "dropped" }, store);
    recorder.observe({ kind: "settle", body: {}, ok: true });
    await recorder.idle();
    expect(calls).toEqual([]);
    expect(outcomes).toEqual(["dropped"]);
  });

  test("observe returns before anything is read or written: the work starts after the answer", async () => {
    const { store, calls } = fakeStore();
    let reads = 0;
    const recorder = createDiscoveryRecorder({
      read: {
        read: async () => {
          reads += 1;
          return { kind: "valid", declaration };
        },
        locate: () => null,
      },
      store,
      limits: { ttlSeconds: 60, maxEntriesPerPayTo: 10, maxEntryBytes: 16_384 },
      logger: silentLogger,
      count: () => {},
    });
    recorder.observe({ kind: "settle", body: {}, ok: true });
    expect(reads).toBe(0);
    expect(calls).toEqual([]);
    await recorder.idle();
    expect(reads).toBe(1);
  });

  test("SECURITY: a /verify (free to the caller) never runs the costly validation: it only locates the entry", async () => {
    const { store, calls } = fakeStore({ known: true });
    let validations = 0;
    const recorder = createDiscoveryRecorder({
      read: {
        read: async () => {
          validations += 1;
          return { kind: "valid", declaration };
        },
        locate: () => ({ type: "http", operation: "GET", resource: declaration.resource, payTo: "merchant" }),
      },
      store,
      limits: { ttlSeconds: 60, maxEntriesPerPayTo: 10, maxEntryBytes: 16_384 },
      logger: silentLogger,
      count: () => {},
    });
    for (let i = 0; i < 3; i++) recorder.observe({ kind: "verify", body: {}, ok: true });
    await recorder.idle();
    expect(validations).toBe(0);
    expect(calls).toEqual([`seen ${declaration.resource}`, `seen ${declaration.resource}`, `seen ${declaration.resource}`]);
  });

  test("an invalid declaration is counted and writes nothing", async () => {
    const { store, calls } = fakeStore();
    const { recorder, outcomes } = recorderWith({ kind: "invalid", reason: "info failed schema validation" }, store);
    recorder.observe({ kind: "settle", body: {}, ok: true });
    await recorder.idle();
    expect(calls).toEqual([]);
    expect(outcomes).toEqual(["invalid"]);
  });

  test("SECURITY: a declaration larger than DISCOVERY_MAX_ENTRY_BYTES is counted and never written", async () => {
    const { store, calls } = fakeStore();
    const big = { ...declaration, description: "x".repeat(2_000) };
    const { recorder, outcomes } = recorderWith({ kind: "valid", declaration: big }, store, { maxEntryBytes: 1_024 });
    recorder.observe({ kind: "settle", body: {}, ok: true });
    await recorder.idle();
    expect(calls).toEqual([]);
    expect(outcomes).toEqual(["too_large"]);
  });

  test("a failing store is counted and logged, never thrown to the caller, and the queue goes on", async () => {
    const { store, calls } = fakeStore({ fail: true });
    const { recorder, outcomes } = recorderWith({ kind: "valid", declaration }, store);
    expect(() => recorder.observe({ kind: "settle", body: {}, ok: true })).not.toThrow();
    recorder.observe({ kind: "settle", body: {}, ok: true });
    await recorder.idle();
    expect(calls).toHaveLength(2);
    expect(outcomes).toEqual(["error", "error"]);
  });

  test("past maxQueued waiting answers, new ones are dropped and counted (a stalled store holds no unbounded memory)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { store, calls } = fakeStore({ gate });
    const { recorder, outcomes } = recorderWith({ kind: "valid", declaration }, store, { maxQueued: 2 });
    for (let i = 0; i < 5; i++) recorder.observe({ kind: "settle", body: {}, ok: true });
    expect(outcomes).toEqual(["dropped", "dropped", "dropped"]);
    release();
    await recorder.idle();
    expect(calls).toHaveLength(2);
  });
});
