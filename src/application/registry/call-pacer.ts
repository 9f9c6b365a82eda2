import type { Clock } from "../ports/clock.ts";

/** Waits until the next call may start. */
export type CallPacer = () => Promise<void>;

export type CallPacerOptions = Readonly<{
  callsPerSecond: number;
  clock: Clock;
  /** Real waiting by default; tests inject their own. */
  sleep?: (ms: number) => Promise<void>;
}>;

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spaces calls evenly: at most `callsPerSecond` start in any second, however many callers share the
 * pacer. Each caller reserves the next free slot before waiting, so concurrent callers queue up in
 * order instead of bursting when a slot frees.
 */
export function createCallPacer(options: CallPacerOptions): CallPacer {
  const interval = 1000 / options.callsPerSecond;
  const sleep = options.sleep ?? realSleep;
  let nextSlot = Number.NEGATIVE_INFINITY;
  return async () => {
    const now = options.clock.now();
    const slot = Math.max(now, nextSlot);
    nextSlot = slot + interval;
    if (slot > now) await sleep(slot - now);
  };
}
