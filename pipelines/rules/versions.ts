/**
 * Row versions for ReplacingMergeTree: microseconds of the wall clock, strictly increasing within
 * the process, so the later of two writes wins (across processes, the later clock).
 */
export function versionSource(now: () => number): () => number {
  let last = 0;
  return () => {
    last = Math.max(last + 1, Math.floor(now() * 1000));
    return last;
  };
}

/** Runs tasks of one key one after another (a check-then-insert must not interleave). */
export function keyedSerial(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
