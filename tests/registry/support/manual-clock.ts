import type { Clock } from "../../../src/application/ports/clock.ts";

/** A clock that moves only when told to (no real waiting). */
export type ManualClock = Clock & Readonly<{ advance(ms: number): void }>;

export function createManualClock(start = 1_750_000_000_000): ManualClock {
  let now = start;
  return Object.freeze({
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  });
}
