/**
 * Runs `work` and reports how long it took and how it ended, whether it returns a value or a
 * promise. `outcomeOf` names a failure (`"error"` unless the caller knows better); the error
 * itself is rethrown untouched.
 */
export function timed<T>(work: () => T, report: (outcome: string, seconds: number) => void, outcomeOf: (error: unknown) => string = () => "error"): T {
  const started = performance.now();
  const done = (outcome: string) => report(outcome, (performance.now() - started) / 1000);
  let result: T;
  try {
    result = work();
  } catch (error) {
    done(outcomeOf(error));
    throw error;
  }
  if (!isThenable(result)) {
    done("ok");
    return result;
  }
  return result.then(
    (value) => {
      done("ok");
      return value;
    },
    (error: unknown) => {
      done(outcomeOf(error));
      throw error;
    },
  ) as T;
}

/**
 * A copy of `target` whose methods are each timed under their own name. Every own function
 * property is wrapped, so a port that grows a method is measured without a change here; other
 * properties are copied as they are.
 */
export function timedMethods<T extends object>(target: T, report: (method: string, outcome: string, seconds: number) => void, outcomeOf?: (error: unknown) => string): T {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) {
    copy[key] =
      typeof value === "function"
        ? (...args: unknown[]) => timed(() => (value as (...a: unknown[]) => unknown)(...args), (outcome, seconds) => report(key, outcome, seconds), outcomeOf)
        : value;
  }
  return Object.freeze(copy) as T;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
