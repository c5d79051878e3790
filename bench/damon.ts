import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The kernel's DAMON monitor (kdamond) on the machine, if it runs. The VMs these benchmarks run on
 * use it for proactive reclaim, sampling page access every 500 ms; each pass takes the CPU from a
 * busy process with many threads for 15–30 ms, which is most of the p99 of the latency benchmarks
 * here (bench/RESULTS.md, "What the tail is made of on this machine"). A benchmark names its state
 * in its report; with WEIR_BENCH_PAUSE_DAMON=1 (root) it switches kdamond off for the run and back
 * on when it exits, so both figures can be had.
 */
const ADMIN = '/sys/kernel/mm/damon/admin/kdamonds';

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
};

const kdamonds = (): string[] => (existsSync(ADMIN) ? readdirSync(ADMIN).filter((d) => /^\d+$/.test(d)).map((d) => path.join(ADMIN, d)) : []);

const running = (): string[] => kdamonds().filter((d) => read(path.join(d, 'state')) === 'on');

const paused: string[] = [];
if (process.env.WEIR_BENCH_PAUSE_DAMON === '1' && process.env.WEIR_BENCH_SERVER !== '1') {
  for (const d of running()) {
    writeFileSync(path.join(d, 'state'), 'off');
    paused.push(d);
  }
  process.on('exit', () => {
    for (const d of paused) writeFileSync(path.join(d, 'state'), 'on');
  });
}

/** Whether a kdamond runs now (false while this process has it paused). */
export const kdamondRunning = (): boolean => running().length > 0;

/** One sentence for a report: whether kdamond ran during the benchmark, and its sampling interval. */
export function damonState(): string {
  if (paused.length > 0) return 'kdamond (DAMON reclaim) paused for this run (WEIR_BENCH_PAUSE_DAMON=1)';
  const on = running();
  if (on.length === 0) return 'no kdamond (DAMON) running';
  const sample = Number(read(path.join(on[0]!, 'contexts/0/monitoring_attrs/intervals/sample_us')));
  return `kdamond (DAMON reclaim) running${sample ? `, sampling every ${sample / 1000} ms` : ''}: expect its stalls in the tail`;
}
