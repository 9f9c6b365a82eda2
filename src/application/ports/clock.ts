/** Wall clock in milliseconds since the Unix epoch. Injected so TTLs and windows are testable. */
export type Clock = Readonly<{ now(): number }>;

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/**
 * Runs `task` every `ms` milliseconds until the returned stop function is called. Injected beside
 * the Clock so a periodic loop is testable without waiting for real time to pass.
 */
export type Repeater = (ms: number, task: () => void) => () => void;

export const systemRepeater: Repeater = (ms, task) => {
  const timer: { unref?: () => void } | number = setInterval(task, ms);
  // A background loop must never keep the process alive on its own (Node and Bun; Deno has no unref).
  if (typeof timer === "object") timer.unref?.();
  return () => clearInterval(timer as Parameters<typeof clearInterval>[0]);
};

/** A clock as the `now()` function some loops take, bound so a clock written with methods keeps its `this`. */
export function nowOf(clock: Clock | undefined): (() => number) | undefined {
  return clock ? () => clock.now() : undefined;
}
