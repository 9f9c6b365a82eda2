import type { Clock } from "./ports/clock.ts";
import type { WindowCounters } from "./ports/window-counters.ts";

export type RateLimiter = Readonly<{ allow(key: string): Promise<boolean> }>;

/**
 * At most `limit` calls per key per fixed window, counted in the shared window counters, so the
 * limit holds across replicas. Used where each call costs us (a KMS or HSM signature).
 *
 * SECURITY: fails closed. When the counters cannot answer, `allow` throws their
 * COUNTERS_UNAVAILABLE (answered 503), never `true`: an outage of the counter store must not
 * lift the limit it enforces.
 */
export function createRateLimiter(counters: WindowCounters, options: Readonly<{ limit: number; windowSeconds: number }>, clock: Clock): RateLimiter {
  const windowMs = options.windowSeconds * 1000;
  return Object.freeze({
    async allow(key: string) {
      const [count = 0n] = await counters.add(Math.floor(clock.now() / windowMs), [key], 1n);
      return count <= BigInt(options.limit);
    },
  });
}
