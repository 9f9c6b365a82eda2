/**
 * Work that pauses itself: a generator that yields at points where it may give the event loop
 * back (every few hundred items), and returns its result. Pure code can then be run to the end at
 * once (`finishNow`) or in time slices by an application-layer runner, without knowing which.
 */
export type SlicedWork<T> = Generator<void, T, void>;

/** Runs the work to the end without pausing. */
export function finishNow<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** A stable sort in slices: sorted runs of 256, then merge passes that yield every 1,024 moves. */
export function* sortSliced<T>(items: readonly T[], compare: (a: T, b: T) => number): SlicedWork<T[]> {
  const RUN = 256;
  let source: T[] = [];
  for (let start = 0; start < items.length; start += RUN) {
    for (const item of items.slice(start, start + RUN).sort(compare)) source.push(item);
    yield;
  }
  let target: T[] = new Array<T>(source.length);
  for (let width = RUN; width < source.length; width *= 2) {
    let moves = 0;
    for (let low = 0; low < source.length; low += 2 * width) {
      const middle = Math.min(low + width, source.length);
      const high = Math.min(low + 2 * width, source.length);
      let left = low;
      let right = middle;
      for (let out = low; out < high; out++) {
        // Ties take the left run first, which keeps the sort stable.
        if (left < middle && (right >= high || compare(source[left] as T, source[right] as T) <= 0)) target[out] = source[left++] as T;
        else target[out] = source[right++] as T;
        if ((++moves & 1023) === 0) yield;
      }
    }
    [source, target] = [target, source];
  }
  return source;
}
