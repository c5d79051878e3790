/**
 * Preload for a benchmark's server (`WEIR_BENCH_NODE_ARGS="--import ./bench/loop-gaps.mjs"`): a 1 ms
 * interval timer records every turn of the event loop later than 8 ms, with its time since start,
 * and the process's garbage collections; written as JSON to WEIR_LOOP_GAPS_OUT (default
 * loop-gaps.json in the working directory) every 2 s and at exit, with the epoch time (`origin`) and the
 * monotonic microsecond (`hr0`, the clock of a `--cpu-prof` profile) that `at` counts from. Used to find the 540 ms period
 * of kdamond's stalls (bench/RESULTS.md, "What the tail is made of on this machine").
 */
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';

const t0 = performance.now();
const hr0 = Number(process.hrtime.bigint() / 1000n);
const gaps = [];
const gcs = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ at: Math.round(e.startTime - t0), ms: +e.duration.toFixed(2), kind: e.detail?.kind });
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last > 8) gaps.push({ at: Math.round(last - t0), ms: +(now - last).toFixed(1) });
  last = now;
}, 1).unref();
const dump = () => writeFileSync(process.env.WEIR_LOOP_GAPS_OUT ?? 'loop-gaps.json', JSON.stringify({ origin: performance.timeOrigin + t0, hr0: hr0, gaps, gcs }));
setInterval(dump, 2_000).unref();
process.on('exit', dump);
