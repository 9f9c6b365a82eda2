import type { Clock } from "../ports/clock.ts";
import type { SignInStore, UserRecord } from "../ports/sign-in-store.ts";

export type UserCacheOptions = Readonly<{
  clock: Clock;
  /** How long a user record is served from memory. Default 5 s. */
  ttlMs?: number;
  /** Users kept at most (the oldest entries go first). Default 10,000. */
  maxUsers?: number;
}>;

/**
 * The sign-in store with `findUser` answered from memory for a few seconds. GET /users/me reads the
 * user on every request, and on embedded PGlite that read (~0.5 ms on the event loop) was most of
 * the request: the endpoint topped out near 500 req/s. A sign-in through this process replaces its
 * entry at once; one through another replica shows here within `ttlMs` (`lastSignInAt` only: a user
 * record is never deleted). Only users found are kept, so a first sign-in elsewhere is never hidden
 * behind a cached "unknown". Concurrent lookups of one address share one read.
 */
export function withUserCache(store: SignInStore, options: UserCacheOptions): SignInStore {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxUsers = options.maxUsers ?? 10_000;
  const cached = new Map<string, { user: UserRecord; until: number }>();
  const reading = new Map<string, Promise<UserRecord | null>>();

  function remember(user: UserRecord): void {
    cached.delete(user.address);
    cached.set(user.address, { user, until: options.clock.now() + ttlMs });
    // Maps keep insertion order: the first key is the oldest entry.
    if (cached.size > maxUsers) cached.delete(cached.keys().next().value as string);
  }

  return Object.freeze({
    ...store,
    async completeSignIn(attempt) {
      const user = await store.completeSignIn(attempt);
      if (user) remember(user);
      return user;
    },
    findUser(address: string): Promise<UserRecord | null> {
      const hit = cached.get(address);
      if (hit && hit.until > options.clock.now()) return Promise.resolve(hit.user);
      const shared = reading.get(address);
      if (shared) return shared;
      const read = store
        .findUser(address)
        .then((user) => {
          if (user) remember(user);
          return user;
        })
        .finally(() => reading.delete(address));
      reading.set(address, read);
      return read;
    },
  });
}
