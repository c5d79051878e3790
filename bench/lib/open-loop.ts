/**
 * An open-loop load: request i is due at start + i / rate, whatever happened to the ones before it,
 * and its latency counts from when it was due, so a stalled server shows in the tail instead of
 * slowing the sender down (the coordinated omission a closed loop hides).
 */
export async function openLoop<R>(o: { rate: number; seconds: number; send: (i: number) => Promise<R>; onAnswer?: (answer: R) => void }): Promise<{ latencies: number[]; failed: number; ms: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const start = performance.now() + 50;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < o.rate * o.seconds; i++) {
    const due = start + (i * 1000) / o.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      o.send(i).then(
        (answer) => {
          latencies.push(performance.now() - due);
          o.onAnswer?.(answer);
        },
        (err: unknown) => {
          if (failed++ === 0) console.error(`first failure: ${String(err)}`);
        },
      ),
    );
  }
  await Promise.all(inflight);
  return { latencies: latencies.sort((a, b) => a - b), failed, ms: performance.now() - start };
}

/** The q-quantile (0..1) of ascending latencies; NaN when there are none. */
export const percentile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
