/** Runs one batch: one result per item, in the items' order. Throwing fails every item of the batch. */
export type BatchRun<I, O> = (items: readonly I[]) => Promise<readonly O[]>;

export type BatchOptions = Readonly<{
  /** Most items one run takes; the rest wait for the next run. */
  maxBatch: number;
  /** Runs allowed at once (default 1). One gives the largest batches; more trade batch size for latency. */
  maxInFlight?: number;
}>;

type Waiting<I, O> = Readonly<{ item: I; resolve: (result: O) => void; reject: (error: unknown) => void }>;

/**
 * Group commit: each caller hands in one item and gets its own result, but the items that arrive
 * while a run is under way wait and go together in the next run. Nothing waits on a timer: with
 * a free slot an item leaves at the end of the current microtask turn (so a burst released by
 * one event, such as a confirmation poll, leaves as one batch), and under load batches grow to
 * what arrived during one run. At low load that adds no latency; at high load one statement or
 * RPC call serves many settlements.
 *
 * An item only ever joins a run that has not started, so a read it gets back started after the
 * caller asked (what blockhash and funds checks rely on).
 */
export function createBatcher<I, O>(run: BatchRun<I, O>, options: BatchOptions): (item: I) => Promise<O> {
  const maxInFlight = options.maxInFlight ?? 1;
  if (!(options.maxBatch >= 1) || !(maxInFlight >= 1)) throw new RangeError("maxBatch and maxInFlight must be at least 1");
  const queue: Waiting<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || inFlight >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    queueMicrotask(flush);
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      inFlight += 1;
      void runBatch(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  async function runBatch(batch: readonly Waiting<I, O>[]): Promise<void> {
    let results: readonly O[];
    try {
      results = await run(batch.map((waiting) => waiting.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} returned ${results.length} results`);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, index) => waiting.resolve(results[index] as O));
  }

  return (item: I) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
