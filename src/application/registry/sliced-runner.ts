import type { SlicedWork } from "../../domain/registry/sliced-work.ts";

/** Gives the event loop back (pending requests run) and resolves after. */
export type YieldToEventLoop = () => Promise<void>;


/**
 * Where a refresh spent the event loop. `longestCpuMs`: the longest slice in this thread's CPU time,
 * when a CPU clock was given (on a loaded machine a slice's wall time includes waiting for a CPU).
 */
export type SliceStats = { busyMs: number; slices: number; longestMs: number; longestCpuMs: number };

export function emptySliceStats(): SliceStats {
  return { busyMs: 0, slices: 0, longestMs: 0, longestCpuMs: 0 };
}

export type SliceOptions = Readonly<{
  /** Longest stretch of work before the event loop gets a turn. */
  sliceMs: number;
  yieldNow: YieldToEventLoop;
  stats?: SliceStats;
  /** This thread's CPU time in ms (benchmarks), read at each slice's start and end. */
  cpuNow?: () => number;
}>;

/**
 * Turns of the event loop shared by every piece of background work that takes them: each caller
 * waits for the turns asked before its own, and each turn is one `yieldOnce` (a setImmediate) after
 * the previous one, so one turn of the loop runs one slice, whoever's. With each sliced task yielding
 * on its own, every task ready in a turn ran its slice in it: three kinds' refreshes (agents,
 * feedback, services) and a reader unpacking an answer held a request for the sum of their slices,
 * 12-20 ms at 100,000 agents, while each slice alone was 4-5 ms.
 */
export function createTurnQueue(yieldOnce: YieldToEventLoop): YieldToEventLoop {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const turn = last.then(yieldOnce);
    last = turn;
    return turn;
  };
}

/**
 * Runs sliced work off the request path: steps run for at most about `sliceMs`, then pending
 * requests get the event loop, so a refresh of a large registry delays a request by one slice at
 * most instead of its whole duration. The first slice waits for a turn too: work started by a timer
 * or a read's answer would otherwise run beside another task's slice in the same turn.
 */
export async function runInSlices<T>(work: SlicedWork<T>, options: SliceOptions): Promise<T> {
  const { sliceMs, yieldNow, stats, cpuNow } = options;
  await yieldNow();
  for (;;) {
    const start = performance.now();
    const cpuStart = cpuNow?.() ?? 0;
    let step = work.next();
    while (!step.done && performance.now() - start < sliceMs) step = work.next();
    if (stats) {
      const spent = performance.now() - start;
      stats.busyMs += spent;
      stats.slices += 1;
      stats.longestMs = Math.max(stats.longestMs, spent);
      if (cpuNow) stats.longestCpuMs = Math.max(stats.longestCpuMs, cpuNow() - cpuStart);
    }
    if (step.done) return step.value;
    await yieldNow();
  }
}
