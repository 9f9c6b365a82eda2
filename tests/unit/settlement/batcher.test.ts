import { describe, expect, test } from "bun:test";
import { createBatcher } from "../../../src/application/settlement/batcher.ts";

/** A run the test finishes by hand, recording what each run was given. */
function manualRuns<I>() {
  const runs: { items: readonly I[]; finish(results?: readonly string[]): void; fail(error: unknown): void }[] = [];
  const run = (items: readonly I[]) =>
    new Promise<readonly string[]>((resolve, reject) => {
      runs.push({ items, finish: (results) => resolve(results ?? items.map((i) => `done:${String(i)}`)), fail: reject });
    });
  return { runs, run };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("group commit (createBatcher)", () => {
  test("items handed in during one turn leave together; each caller gets its own result", async () => {
    const { runs, run } = manualRuns<number>();
    const call = createBatcher(run, { maxBatch: 10 });
    const answers = Promise.all([call(1), call(2), call(3)]);
    await turn();
    expect(runs.map((r) => r.items)).toEqual([[1, 2, 3]]);
    runs[0]?.finish();
    expect(await answers).toEqual(["done:1", "done:2", "done:3"]);
  });

  test("items that arrive while a run is under way wait and go together in the next run, never into the running one", async () => {
    const { runs, run } = manualRuns<number>();
    const call = createBatcher(run, { maxBatch: 10 });
    const first = call(1);
    await turn();
    const later = [call(2), call(3), call(4)];
    await turn();
    expect(runs.map((r) => r.items)).toEqual([[1]]);
    runs[0]?.finish();
    expect(await first).toBe("done:1");
    await turn();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4]]);
    runs[1]?.finish();
    expect(await Promise.all(later)).toEqual(["done:2", "done:3", "done:4"]);
  });

  test("maxBatch splits a burst; maxInFlight lets that many runs go at once", async () => {
    const { runs, run } = manualRuns<number>();
    const call = createBatcher(run, { maxBatch: 2, maxInFlight: 2 });
    const answers = Promise.all([1, 2, 3, 4, 5].map(call));
    await turn();
    expect(runs.map((r) => r.items)).toEqual([[1, 2], [3, 4]]);
    runs[0]?.finish();
    await turn();
    expect(runs.map((r) => r.items)).toEqual([[1, 2], [3, 4], [5]]);
    runs[1]?.finish();
    runs[2]?.finish();
    expect(await answers).toEqual([1, 2, 3, 4, 5].map((i) => `done:${i}`));
  });

  test("a failed run rejects every item in it, and the next run goes on", async () => {
    const { runs, run } = manualRuns<number>();
    const call = createBatcher(run, { maxBatch: 10 });
    const failing = [call(1), call(2)].map((p) => p.catch((error: Error) => error.message));
    await turn();
    const next = call(3);
    runs[0]?.fail(new Error("connection lost"));
    expect(await Promise.all(failing)).toEqual(["connection lost", "connection lost"]);
    await turn();
    runs[1]?.finish();
    expect(await next).toBe("done:3");
  });

  test("a run that answers the wrong number of results fails its items instead of mismatching them", async () => {
    const { runs, run } = manualRuns<number>();
    const call = createBatcher(run, { maxBatch: 10 });
    const answers = [call(1), call(2)].map((p) => p.catch((error: Error) => error.message));
    await turn();
    runs[0]?.finish(["only one"]);
    expect(await Promise.all(answers)).toEqual(["a batch of 2 returned 1 results", "a batch of 2 returned 1 results"]);
  });
});
