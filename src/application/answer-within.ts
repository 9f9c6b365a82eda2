/**
 * `work`'s answer, or `late()` when `ms` pass first. The work is not cancelled: its later answer or
 * failure is dropped. The timer never outlives the race, so a fast answer leaves nothing pending.
 */
export async function answerWithin<T, L>(work: Promise<T>, ms: number, late: () => L): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
