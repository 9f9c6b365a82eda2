/** Wall clock in milliseconds since the Unix epoch. Injected so TTLs and windows are testable. */
export type Clock = Readonly<{ now(): number }>;

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
