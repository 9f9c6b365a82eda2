import { describe, expect, test } from "bun:test";
import { createRefreshingSnapshot } from "../../src/application/registry/refreshing-snapshot.ts";
import { createManualClock } from "./support/manual-clock.ts";

class Unavailable extends Error {}

function setup() {
  const clock = createManualClock();
  let version = 0;
  let loads = 0;
  let failing: Error | null = null;
  let gate: Promise<void> | null = null;
  let release = () => {};
  const snapshot = createRefreshingSnapshot({
    clock,
    ttlMs: 30_000,
    retryMs: 5_000,
    unavailable: (cause) => new Unavailable(String(cause)),
    load: async () => {
      loads++;
      if (gate) await gate;
      if (failing) throw failing;
      return ++version;
    },
  });
  return {
    clock,
    snapshot,
    loads: () => loads,
    fail: (e: Error | null) => (failing = e),
    hold: () => {
      gate = new Promise((r) => (release = () => ((gate = null), r())));
      return () => release();
    },
  };
}

describe("refreshing snapshot (manual clock)", () => {
  test("reloads only once the TTL has passed, counting from the load's start", async () => {
    const s = setup();
    expect(await s.snapshot.get()).toBe(1);
    s.clock.advance(29_999);
    expect(await s.snapshot.get()).toBe(1);
    s.clock.advance(1);
    expect(await s.snapshot.get()).toBe(2);
    expect(s.loads()).toBe(2);
  });

  test("concurrent callers share one load", async () => {
    const s = setup();
    const release = s.hold();
    const all = Promise.all(Array.from({ length: 200 }, () => s.snapshot.get()));
    release();
    expect(new Set(await all)).toEqual(new Set([1]));
    expect(s.loads()).toBe(1);
  });

  test("a failed refresh keeps the last good value and backs off before retrying", async () => {
    const s = setup();
    await s.snapshot.get();
    s.clock.advance(30_000);
    s.fail(new Error("rpc down"));
    expect(await s.snapshot.get()).toBe(1);
    expect(s.snapshot.state().lastErrorAt).not.toBeNull();
    expect(await s.snapshot.get()).toBe(1);
    expect(s.loads()).toBe(2); // within the 5 s back-off: no new attempt
    s.clock.advance(5_000);
    s.fail(null);
    expect(await s.snapshot.get()).toBe(2);
    expect(s.snapshot.state()).toMatchObject({ lastErrorAt: null, lastError: null });
  });

  test("nothing loaded yet and the load fails: callers get the unavailable error", async () => {
    const s = setup();
    s.fail(new Error("rpc down"));
    await expect(s.snapshot.get()).rejects.toBeInstanceOf(Unavailable);
    await expect(s.snapshot.get()).rejects.toBeInstanceOf(Unavailable);
    expect(s.loads()).toBe(1); // the second caller was inside the back-off window
    s.clock.advance(5_000);
    s.fail(null);
    expect(await s.snapshot.get()).toBe(1);
  });
});
