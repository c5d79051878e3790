/** Runs `total` operations as `calls` of a size, `concurrency` calls in flight; answers operations per second. */
export async function opsPerSecond(total: number, perCall: number, concurrency: number, call: (first: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) {
      const first = next;
      next += perCall;
      await call(first);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - started) / 1000);
}
