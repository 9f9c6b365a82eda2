import { describe, expect, test } from "bun:test";
import { createRefreshingSnapshot } from "../../../src/application/registry/refreshing-snapshot.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";

class Unavailable extends Error {}

/** A snapshot over a counting loader that a test can fail or hold; `schedule` arms refresh-ahead. */
function setup(schedule?: (callback: () => void, delayMs: number) => () => void) {
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
    ...(schedule ? { schedule } : {}),
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

/** A hand-driven timer: the test fires what the snapshot scheduled. */
function manualSchedule() {
  const pending: { callback: () => void; delayMs: number; cancelled: boolean }[] = [];
  return {
    schedule: (callback: () => void, delayMs: number) => {
      const timer = { callback, delayMs, cancelled: false };
      pending.push(timer);
      return () => void (timer.cancelled = true);
    },
    /** The delay of the one live timer (the snapshot keeps at most one). */
    armed: () => pending.filter((t) => !t.cancelled).map((t) => t.delayMs),
    fire: () => {
      const live = pending.filter((t) => !t.cancelled);
      pending.length = 0;
      for (const timer of live) timer.callback();
    },
  };
}

/** The same snapshot, with its refresh-ahead timer in the test's hand. */
function setupAhead() {
  const timers = manualSchedule();
  return { ...setup(timers.schedule), timers };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("refreshing snapshot: refresh ahead of expiry (manual clock, hand-fired timer)", () => {
  test("a value read during its lifetime is reloaded before it expires, and readers never wait for that load", async () => {
    const s = setupAhead();
    expect(await s.snapshot.get()).toBe(1);
    // Due 1 s (the minimum lead) before expiry: the load took no time on the manual clock.
    expect(s.timers.armed()).toEqual([29_000]);
    s.clock.advance(29_000);
    expect(await s.snapshot.get()).toBe(1);
    const release = s.hold();
    s.timers.fire();
    expect(s.loads()).toBe(2);
    // The load is held: readers get the current value at once.
    expect(await s.snapshot.get()).toBe(1);
    s.clock.advance(500);
    expect(await s.snapshot.get()).toBe(1);
    release();
    await settle();
    expect(await s.snapshot.get()).toBe(2);
    expect(s.snapshot.state().lastSuccessAt).toBe(s.clock.now() - 500);
    // Fresh for a full TTL from the start of the load ahead.
    s.clock.advance(29_499);
    expect(await s.snapshot.get()).toBe(2);
    expect(s.loads()).toBe(2);
  });

  test("when the refresh ahead comes due before anyone read the value, the first read after that starts it (without waiting)", async () => {
    const s = setupAhead();
    await s.snapshot.get();
    s.clock.advance(29_000);
    s.timers.fire();
    expect(s.loads()).toBe(1);
    const release = s.hold();
    s.clock.advance(100);
    expect(await s.snapshot.get()).toBe(1);
    expect(s.loads()).toBe(2);
    release();
    await settle();
    expect(await s.snapshot.get()).toBe(2);
  });

  test("a value no one read is left to expire: no load without readers, and the next reader loads (and waits) as before", async () => {
    const s = setupAhead();
    await s.snapshot.get();
    s.clock.advance(29_000);
    s.timers.fire();
    await settle();
    expect(s.loads()).toBe(1);
    s.clock.advance(1_000);
    expect(await s.snapshot.get()).toBe(2);
    expect(s.loads()).toBe(2);
  });

  test("a timer that fires before the clock reaches the due time re-arms instead of loading early", async () => {
    const s = setupAhead();
    await s.snapshot.get();
    s.clock.advance(10_000);
    await s.snapshot.get();
    s.timers.fire();
    expect(s.loads()).toBe(1);
    expect(s.timers.armed()).toEqual([19_000]);
  });

  test("a failed load ahead keeps the fresh value, and is tried again after the back-off while readers remain", async () => {
    const s = setupAhead();
    await s.snapshot.get();
    s.clock.advance(29_000);
    await s.snapshot.get();
    s.fail(new Error("rpc down"));
    s.timers.fire();
    await settle();
    expect(s.loads()).toBe(2);
    expect(await s.snapshot.get()).toBe(1);
    expect(s.timers.armed()).toEqual([5_000]);
    s.fail(null);
    s.clock.advance(5_000);
    s.timers.fire();
    await settle();
    expect(await s.snapshot.get()).toBe(2);
  });

  test("a value that expires while its replacement is loading is still served until that load lands (no wait), within a second TTL", async () => {
    const s = setupAhead();
    await s.snapshot.get();
    s.clock.advance(29_000);
    await s.snapshot.get();
    const release = s.hold();
    s.timers.fire();
    s.clock.advance(1_000); // expired now, the load ahead still running
    expect(await s.snapshot.get()).toBe(1);
    s.clock.advance(29_999);
    expect(await s.snapshot.get()).toBe(1);
    s.clock.advance(1); // two TTLs after value 1 was read: the reader joins the load instead
    const joined: number[] = [];
    void s.snapshot.get().then((v) => joined.push(v));
    await settle();
    expect(joined).toEqual([]);
    release();
    await settle();
    expect(joined).toEqual([2]);
    expect(s.loads()).toBe(2);
  });
});

