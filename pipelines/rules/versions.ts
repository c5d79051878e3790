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
