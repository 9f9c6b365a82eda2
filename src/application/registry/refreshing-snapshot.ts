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

/** Runs `callback` after `delayMs` (real time); returns a cancel function. Must not keep the process alive. */
export type Schedule = (callback: () => void, delayMs: number) => () => void;

export type RefreshingSnapshotOptions<T> = Readonly<{
  load: () => Promise<T>;
  clock: Clock;
  ttlMs: number;
  /** Wait after a failed load before the next attempt, so a dead ledger is not hammered. */
  retryMs: number;
  /** Thrown by get() when nothing has ever loaded; receives the load failure. */
  unavailable: (cause: unknown) => Error;
  /** Timer for the refresh ahead of expiry; an unref'd setTimeout by default. */
  schedule?: Schedule;
}>;

/** The refresh ahead of expiry starts at least this long before it, and at least twice the last load's duration. */
const MIN_LEAD_MS = 1_000;

export const unrefTimeout: Schedule = (callback, delayMs) => {
  const timer = setTimeout(callback, delayMs);
  // Bun and Node return a Timeout with unref(); elsewhere a number, which has none.
  if (typeof timer === "object" && timer !== null && "unref" in timer && typeof timer.unref === "function") timer.unref();
  return () => clearTimeout(timer);
};

/**
 * A value loaded from a slow source and kept for `ttlMs`. Concurrent callers share one load
 * (single flight); a failed load keeps the last good value. Freshness counts from the moment a
 * load starts.
 *
 * Readers do not wait for refreshes while they keep reading: when the value has been read since
 * it loaded, the next load starts on a timer shortly before the value expires (twice the last
 * load's duration ahead, at least 1 s, at most half the TTL), or at the first read after that
 * time if nobody had read it yet, and replaces it when done. If that
 * load is still running when the value expires, readers keep getting the value until it lands
 * (so a value is served at most one TTL plus the running load's duration after it was read,
 * never more than two TTLs). Only a read that finds the value expired with no load running (no
 * one read it during its lifetime, or the load ahead failed) waits for a load, as before.
 */
export function createRefreshingSnapshot<T>(options: RefreshingSnapshotOptions<T>): RefreshingSnapshot<T> {
  const { load, clock, ttlMs, retryMs } = options;
  const schedule = options.schedule ?? unrefTimeout;
  let value: T | undefined;
  let hasValue = false;
  let expiresAt = Number.NEGATIVE_INFINITY;
  let nextAttemptAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<T> | null = null;
  let lastSuccessAt: number | null = null;
  let lastErrorAt: number | null = null;
  let lastError: unknown = null;
  /** Whether a reader was served the current value (the read that waited for its load does not count). */
  let readSinceLoad = false;
  /** The refresh ahead came due before anyone read the value: the next read starts it. */
  let aheadDue = false;
  let lastLoadMs = 0;
  let cancelAhead = () => {};

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
          expiresAt = startedAt + ttlMs;
          nextAttemptAt = expiresAt;
          lastLoadMs = clock.now() - startedAt;
          readSinceLoad = false;
          aheadDue = false;
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
        armRefreshAhead();
      });
    return inFlight;
  }

  /** The time the next refresh ahead of expiry is due, or null when none should run. */
  function refreshAheadDue(): number | null {
    if (!hasValue || ttlMs <= 0 || lastSuccessAt === null) return null;
    const lead = Math.min(ttlMs / 2, Math.max(MIN_LEAD_MS, 2 * lastLoadMs));
    return Math.max(expiresAt - lead, nextAttemptAt === expiresAt ? Number.NEGATIVE_INFINITY : nextAttemptAt);
  }

  function armRefreshAhead(): void {
    cancelAhead();
    const due = refreshAheadDue();
    if (due === null) return;
    cancelAhead = schedule(() => {
      const now = clock.now();
      // Idle values are left to expire (no load without readers); a clock that has not reached the
      // due time (tests move theirs by hand) re-arms instead of loading early.
      if (inFlight) return;
      if (now < due) return armRefreshAhead();
      if (!readSinceLoad) {
        aheadDue = true;
        return;
      }
      startLoad().catch(() => {});
    }, Math.max(0, due - clock.now()));
  }

  function served(): Promise<T> {
    readSinceLoad = true;
    if (aheadDue && !inFlight) {
      aheadDue = false;
      startLoad().catch(() => {});
    }
    return Promise.resolve(value as T);
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
    const now = clock.now();
    if (hasValue && now < expiresAt) return served();
    // Expired with its replacement already loading: the value is at most one TTL older than that
    // load's start, so it is served instead of making the reader wait (within a second TTL).
    if (hasValue && inFlight && now < expiresAt + ttlMs) return served();
    if (now < nextAttemptAt) {
      if (hasValue) return served();
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
