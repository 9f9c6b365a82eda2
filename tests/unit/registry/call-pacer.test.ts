import { describe, expect, test } from "bun:test";
import { createCallPacer } from "../../../src/application/registry/call-pacer.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";

describe("call pacer (manual clock, recorded sleeps)", () => {
  test("concurrent callers get consecutive slots 1/rate apart; an idle pacer lets the next call through at once", async () => {
    const clock = createManualClock();
    const sleeps: number[] = [];
    const pace = createCallPacer({ callsPerSecond: 4, clock, sleep: async (ms) => void sleeps.push(ms) });
    await Promise.all([pace(), pace(), pace(), pace()]);
    expect(sleeps).toEqual([250, 500, 750]);
    clock.advance(10_000);
    await pace();
    expect(sleeps).toEqual([250, 500, 750]);
    await pace();
    expect(sleeps).toEqual([250, 500, 750, 250]);
  });
});
