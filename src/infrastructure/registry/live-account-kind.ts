import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { Logger } from "../../application/ports/logger.ts";
import type { ProgramFeedHandlers } from "../../application/ports/program-account-feed.ts";
import type { Schedule } from "../../application/registry/refreshing-snapshot.ts";
import type { IndexSweep } from "../../application/registry/index-persister.ts";
import { emptySliceStats, type SliceStats } from "../../application/registry/sliced-runner.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import type { AccountBaseline, AccountWrite, BaselineChanges, StoredAccount } from "./account-baseline.ts";
import type { ProgramAccountReader } from "./rpc-program-account-reader.ts";

export type AccountKind = "agents" | "feedback" | "services";

/**
 * What one step of one kind cost. `source`: a full read (`read`), pushed writes (`feed`) or the
 * store at start-up (`store`). `busyMs` is the event-loop time of the index's own work (not the
 * ledger read); `longestSliceMs` the longest stretch a request could wait behind it.
 */
export type RefreshReport = Readonly<{
  kind: AccountKind;
  source: "read" | "feed" | "store";
  wallMs: number;
  readMs: number;
  busyMs: number;
  longestSliceMs: number;
  /** The same in this thread's CPU time, when the index was given a CPU clock (benchmarks); else 0. */
  longestSliceCpuMs: number;
  accounts: number;
  changed: number;
}>;

/** How one kind's model follows its accounts. */
export type KindSpec<R, M> = Readonly<{
  kind: AccountKind;
  discriminator: ReadonlyUint8Array;
  baseline: AccountBaseline<R>;
  /** After a full read (or the store), with `previous` when there is one: exact whatever changed. */
  rebuilt(previous: M | undefined, changes: BaselineChanges<R>): SlicedWork<M>;
  /** After pushed writes. */
  changed(previous: M, changes: BaselineChanges<R>): SlicedWork<M>;
  /** Told of the records that entered the model (feedback detail URIs). */
  entered?(records: readonly R[], all: boolean): void;
}>;

export type KindEnv = Readonly<{
  read: ProgramAccountReader;
  filtersOf(discriminator: ReadonlyUint8Array): Parameters<ProgramAccountReader>[1];
  programId: Address;
  inSlices<T>(work: SlicedWork<T>, stats: SliceStats): Promise<T>;
  schedule: Schedule;
  now(): number;
  /** Between full reads while the feed is live, and while it is not (or there is none). */
  reconcileMs: number;
  pollMs: number;
  retryMs: number;
  /** Pushed writes are applied in batches, this long after the first of a batch arrived. */
  batchMs: number;
  log: Logger;
  report(report: RefreshReport): void;
  /**
   * What changed, to persist; `reconciled` after a full read's changes (all of them, in order);
   * `sweep` when they are the read whole (see LiveKind.makeWhole).
   */
  persist?(kind: AccountKind, accounts: readonly StoredAccount[], reconciledAt: number | null, sweep?: IndexSweep): void;
  unavailable(cause: unknown): Error;
}>;

export type KindState = Readonly<{ lastSuccessAt: number | null; lastErrorAt: number | null; lastError: unknown; live: boolean; loaded: boolean }>;

export type LiveKind<M> = Readonly<{
  /** The model; before the first load, waits for it (or fails at once when the last attempt failed). */
  model(): Promise<M>;
  peek(): M | undefined;
  /** A full read now, after any running one (forced refresh). */
  reconcile(): Promise<void>;
  /** Applies the pushed writes received so far now, without waiting for their batch. */
  caughtUp(): Promise<void>;
  /**
   * A full read now whose accounts are all persisted (not only the changed ones), then the store's
   * accounts it did not return deleted: this replica became the store's writer, and what the
   * previous one left may lag.
   */
  makeWhole(): Promise<void>;
  /** Fills the baseline from stored accounts; `trusted`: they were a complete read, serve them at once. */
  restore(pages: (onPage: (writes: readonly AccountWrite[]) => Promise<void>) => Promise<boolean>): Promise<void>;
  /**
   * Serves a model built elsewhere (a snapshot in the store): `build` runs as one serial step with
   * a runner for sliced work, and fills the baseline itself; its model is taken unless one is
   * already there. Whether it was.
   */
  restoreBuilt(build: (inSlices: <T>(work: SlicedWork<T>) => Promise<T>) => Promise<Readonly<{ model: M; accounts: number }> | null>): Promise<boolean>;
  /** Starts following: the first full read runs once `firstReadAfterMs` passed or the feed is live. */
  start(firstReadAfterMs: number): void;
  feed: ProgramFeedHandlers;
  state(): KindState;
  stop(): void;
}>;

/**
 * One kind of registry account (agents, feedback, services) kept current: a full
 * getProgramAccounts at start-up, then pushed writes (programSubscribe) applied in batches, and a
 * full read again every `reconcileMs` and whenever the feed comes (back) up; with no live feed, a
 * full read every `pollMs`. Reads run beside the model's updates; every change to the baseline and
 * the model runs one at a time, in slices, so requests are served between them and always see a
 * whole model.
 */
export function createLiveKind<R, M>(spec: KindSpec<R, M>, env: KindEnv): LiveKind<M> {
  const { kind, baseline } = spec;
  let model: M | undefined;
  let lastSuccessAt: number | null = null;
  let lastErrorAt: number | null = null;
  let lastError: unknown = null;
  let live = false;
  let stopped = false;
  /** Reads start only once started: a read must not begin before the store's accounts are in. */
  let begun = false;
  /** Highest slot of a pushed write: a full read started now is at least this recent. */
  let seenSlot = 0n;
  let chain: Promise<unknown> = Promise.resolve();
  const pending = new Map<Address, AccountWrite>();
  let cancelFlush: (() => void) | null = null;
  /** Event-loop time of the last batch: the next one waits ten times as long (see flushSoon). */
  let lastBatchBusyMs = 0;
  let cancelNext: () => void = () => {};
  let nextAt = Number.POSITIVE_INFINITY;
  let reading: Promise<void> | null = null;
  // True from a full read's start until it failed or its model is in. `reading` stays set a few
  // microtasks longer (its `finally`), and a reader arriving in that gap after a failed first read
  // must fail at once, not wait for the next attempt (`retryMs`, 5 s by default).
  let readPending = false;
  let queued: Promise<void> | null = null;
  /** The next full read to start is written whole (makeWhole). */
  let wholeNext = false;
  const loadWaiters: { resolve(model: M): void; reject(error: unknown): void }[] = [];

  /** Runs `task` after every earlier one: the baseline and the model change one step at a time. */
  function serially<T>(task: () => Promise<T>): Promise<T> {
    const run = chain.then(task, task);
    chain = run.catch(() => {});
    return run;
  }

  function loaded(next: M): void {
    model = next;
    for (const waiter of loadWaiters.splice(0)) waiter.resolve(next);
  }

  function failed(error: unknown): void {
    lastError = error;
    lastErrorAt = env.now();
    env.log.warn("registry read failed; serving the last good model", { kind, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    if (!model) for (const waiter of loadWaiters.splice(0)) waiter.reject(env.unavailable(error));
  }

  function scheduleNext(delayMs: number): void {
    if (stopped) return;
    cancelNext();
    nextAt = env.now() + delayMs;
    cancelNext = env.schedule(() => {
      nextAt = Number.POSITIVE_INFINITY;
      void reconcile(false).catch(() => {});
    }, delayMs);
  }

  async function readAll(): Promise<void> {
    const started = performance.now();
    const startedAt = env.now();
    const slot = seenSlot;
    const since = baseline.mark();
    const whole = wholeNext;
    wholeNext = false;
    readPending = true;
    try {
      let accounts: Parameters<AccountBaseline<R>["reconcile"]>[0] | null = await env.read(env.programId, env.filtersOf(spec.discriminator));
      const readMs = performance.now() - started;
      await serially(() => {
        const taken = accounts ?? [];
        // Only applyRead holds the answer (~58 MB at 100,000 agents), and lets it go once compared.
        accounts = null;
        return applyRead(taken, { started, startedAt, slot, since, readMs, whole });
      });
    } catch (error) {
      readPending = false;
      if (whole) wholeNext = true;
      failed(error);
      scheduleNext(env.retryMs);
      throw error;
    }
    if (pending.size > 0) flushSoon();
  }

  /** A full read's accounts into the baseline and the model (one serial step). */
  async function applyRead(
    accounts: Parameters<AccountBaseline<R>["reconcile"]>[0],
    read: Readonly<{ started: number; startedAt: number; slot: bigint; since: number; readMs: number; whole: boolean }>,
  ): Promise<void> {
    const stats = emptySliceStats();
    const changes = await env.inSlices(baseline.reconcile(accounts, read.slot, read.since, read.whole), stats);
    accounts = [];
    const changed = changes.added.length + changes.removed.length;
    const next = !model || changed > 0 ? await env.inSlices(spec.rebuilt(model, changes), stats) : undefined;
    if (changes.skipped.length > 0) env.log.warn("skipped registry accounts that do not decode", { kind, count: changes.skipped.length, sample: changes.skipped.slice(0, 5) });
    if (spec.entered) spec.entered(await env.inSlices(baseline.records(), stats), true);
    env.persist?.(kind, changes.stored, read.startedAt, read.whole ? { keep: (address) => baseline.has(address), slot: read.slot } : undefined);
    lastSuccessAt = read.startedAt;
    lastError = null;
    lastErrorAt = null;
    // The read is done (its state, its next read, and a reconcile from now on starts a new read)
    // before its model is served: whoever waited for the model finds the kind as it will stay, not
    // a few turns of the loop behind it.
    readPending = false;
    reading = null;
    scheduleNext(live ? env.reconcileMs : env.pollMs);
    if (next !== undefined) loaded(next);
    env.report({ kind, source: "read", wallMs: performance.now() - read.started, readMs: read.readMs, busyMs: stats.busyMs, longestSliceMs: stats.longestMs, longestSliceCpuMs: stats.longestCpuMs, accounts: changes.accounts, changed: changes.stored.length });
  }

  /** A full read; `fresh`: one that starts after this call (a running one is not joined). */
  function reconcile(fresh: boolean): Promise<void> {
    if (stopped) return Promise.resolve();
    if (!reading) {
      // applyRead clears `reading` as it serves the model; a read started after that is not this one's.
      const read: Promise<void> = readAll().finally(() => {
        if (reading === read) reading = null;
      });
      reading = read;
      return read;
    }
    if (!fresh) return reading;
    queued ??= reading
      .catch(() => {})
      .then(() => {
        queued = null;
        return reconcile(false);
      });
    return queued;
  }

  /**
   * The next batch, `batchMs` after the first write waiting, or ten times the last batch's work if
   * that is longer (at most 1 s): a batch rebuilds the model's small part whole (the catalog's
   * overlay, up to 1/16 of the agents), so under steady writes it costs at most ~10% of the event
   * loop instead of growing with every batch; a change still shows within about a second.
   */
  function flushSoon(): void {
    if (cancelFlush || stopped) return;
    cancelFlush = env.schedule(() => {
      cancelFlush = null;
      void flush();
    }, Math.min(1_000, Math.max(env.batchMs, 10 * lastBatchBusyMs)));
  }

  function flush(): Promise<void> {
    return serially(async () => {
      // Before the first model, writes wait: the first full read's model takes them after it.
      if (!model || pending.size === 0) return;
      const started = performance.now();
      const writes = [...pending.values()];
      pending.clear();
      const stats = emptySliceStats();
      const changes = await env.inSlices(baseline.apply(writes), stats);
      if (changes.stored.length > 0) {
        loaded(await env.inSlices(spec.changed(model, changes), stats));
        spec.entered?.(changes.added, false);
        env.persist?.(kind, changes.stored, null);
      }
      lastBatchBusyMs = stats.busyMs;
      env.report({ kind, source: "feed", wallMs: performance.now() - started, readMs: 0, busyMs: stats.busyMs, longestSliceMs: stats.longestMs, longestSliceCpuMs: stats.longestCpuMs, accounts: writes.length, changed: changes.stored.length });
    });
  }

  const feed: ProgramFeedHandlers = Object.freeze({
    change(change) {
      if (stopped) return;
      if (change.slot > seenSlot) seenSlot = change.slot;
      pending.set(change.address, change);
      flushSoon();
    },
    status(status, detail) {
      if (stopped) return;
      if (status === "live") {
        live = true;
        // What changed while nothing was followed is found by a full read that starts now.
        if (begun) void reconcile(true).catch(() => {});
        return;
      }
      live = false;
      env.log.warn("registry feed lost; polling until it is back", { kind, detail });
      if (nextAt > env.now() + env.pollMs) scheduleNext(env.pollMs);
    },
  });

  async function restore(pages: (onPage: (writes: readonly AccountWrite[]) => Promise<void>) => Promise<boolean>): Promise<void> {
    const started = performance.now();
    const stats = emptySliceStats();
    let accounts = 0;
    const trusted = await pages((writes) =>
      serially(async () => {
        accounts += writes.length;
        await env.inSlices(baseline.apply(writes), stats);
      }),
    );
    if (!trusted) return;
    await serially(async () => {
      if (model) return;
      const all = await env.inSlices(baseline.records(), stats);
      loaded(await env.inSlices(spec.rebuilt(undefined, { added: all, removed: [], skipped: [], stored: [], accounts }), stats));
      spec.entered?.(all, true);
      env.report({ kind, source: "store", wallMs: performance.now() - started, readMs: 0, busyMs: stats.busyMs, longestSliceMs: stats.longestMs, longestSliceCpuMs: stats.longestCpuMs, accounts, changed: 0 });
    });
    if (pending.size > 0) flushSoon();
  }

  function restoreBuilt(build: (inSlices: <T>(work: SlicedWork<T>) => Promise<T>) => Promise<Readonly<{ model: M; accounts: number }> | null>): Promise<boolean> {
    const started = performance.now();
    const stats = emptySliceStats();
    return serially(async () => {
      if (model) return false;
      const built = await build((work) => env.inSlices(work, stats));
      if (!built || model) return false;
      loaded(built.model);
      env.report({ kind, source: "store", wallMs: performance.now() - started, readMs: 0, busyMs: stats.busyMs, longestSliceMs: stats.longestMs, longestSliceCpuMs: stats.longestCpuMs, accounts: built.accounts, changed: 0 });
      if (pending.size > 0) flushSoon();
      return true;
    });
  }

  return Object.freeze({
    model(): Promise<M> {
      if (model) return Promise.resolve(model);
      if (lastError !== null && !readPending) return Promise.reject(env.unavailable(lastError));
      return new Promise<M>((resolve, reject) => loadWaiters.push({ resolve, reject }));
    },
    peek: () => model,
    reconcile: () => reconcile(true),
    caughtUp: () => flush(),
    makeWhole() {
      wholeNext = true;
      // Before start, the first full read is the one written whole.
      return begun ? reconcile(true) : Promise.resolve();
    },
    restore,
    restoreBuilt,
    start(firstReadAfterMs: number) {
      begun = true;
      if (live || firstReadAfterMs <= 0) void reconcile(false).catch(() => {});
      else scheduleNext(firstReadAfterMs);
    },
    feed,
    state: () => ({ lastSuccessAt, lastErrorAt, lastError, live, loaded: model !== undefined }),
    stop() {
      stopped = true;
      cancelNext();
      cancelFlush?.();
      for (const waiter of loadWaiters.splice(0)) waiter.reject(env.unavailable(new Error("the registry index was closed")));
    },
  });
}
