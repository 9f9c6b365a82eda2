import type { Clock } from "../ports/clock.ts";

export type SnapshotState = Readonly<{
  lastSuccessAt: number | null;
  lastErrorAt: number | null;
  lastError: unknown;
}>;

export type RefreshingSnapshot<T> = Readonly<{
  /** The value, refreshed first when older than the TTL. Falls back to the last good value. */
  get(): Promise<T>;
  /** Refreshes now (or joins the refresh in flight). */
  refresh(): Promise<T>;
  /** The last good value without triggering anything. */
  peek(): T | undefined;
  state(): SnapshotState;
}>;

export type RefreshingSnapshotOptions<T> = Readonly<{
  load: () => Promise<T>;
  clock: Clock;
  ttlMs: number;
  /** Wait after a failed load before the next attempt, so a dead ledger is not hammered. */
  retryMs: number;
  /** Thrown by get() when nothing has ever loaded; receives the load failure. */
  unavailable: (cause: unknown) => Error;
}>;

/**
 * A value loaded from a slow source and kept for `ttlMs`. Concurrent callers share one load
 * (single flight); a failed load keeps the last good value. Freshness counts from the moment a
 * load starts, so data is never served more than `ttlMs` after it was read.
 */
export function createRefreshingSnapshot<T>(options: RefreshingSnapshotOptions<T>): RefreshingSnapshot<T> {
  const { load, clock, ttlMs, retryMs } = options;
  let value: T | undefined;
  let hasValue = false;
  let nextAttemptAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<T> | null = null;
  let lastSuccessAt: number | null = null;
  let lastErrorAt: number | null = null;
  let lastError: unknown = null;

  function startLoad(): Promise<T> {
    if (inFlight) return inFlight;
    const startedAt = clock.now();
    inFlight = load()
      .then(
        (loaded) => {
          value = loaded;
          hasValue = true;
          lastSuccessAt = startedAt;
          lastError = null;
          lastErrorAt = null;
          nextAttemptAt = startedAt + ttlMs;
          return loaded;
        },
        (error: unknown) => {
          lastError = error;
          lastErrorAt = clock.now();
          nextAttemptAt = lastErrorAt + retryMs;
          throw error;
        },
      )
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  async function loadOrFallBack(): Promise<T> {
    try {
      return await startLoad();
    } catch (error) {
      if (hasValue) return value as T;
      throw options.unavailable(error);
    }
  }

  function get(): Promise<T> {
    if (clock.now() < nextAttemptAt) {
      if (hasValue) return Promise.resolve(value as T);
      // Still backing off after a failed first load (a refresh in flight is joined below).
      if (!inFlight) return Promise.reject(options.unavailable(lastError));
    }
    return loadOrFallBack();
  }

  return Object.freeze({
    get,
    refresh: startLoad,
    peek: () => value,
    state: () => ({ lastSuccessAt, lastErrorAt, lastError }),
  });
}
