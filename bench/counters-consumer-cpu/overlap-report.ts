/** The pids the overlap sampler reads, and its table (bench/counters-consumer-cpu/overlap.ts). */
import { readdir, readFile } from 'node:fs/promises';
import type { OverlapSummary } from './overlap.js';

/** The test broker's JVM (infra/scripts/kafka.sh runs kafka.Kafka); one broker on this machine. */
export async function brokerPid(): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('kafka.Kafka')) return Number(entry);
  }
  throw new Error('no Kafka broker process (kafka.Kafka) on this machine');
}

export const OVERLAP_HEADER = `Cores busy (1.00 = one core all the time; the machine has 2) over the drain; share of partition-time in each phase;
share of samples with all six partitions between batches (commit, fetch) or only some (waiting for the fetch's other batches);
the apply limit's mean weight in flight (of its budget) and share of samples with a chunk waiting for it; the event loop's
delay (p99 / max, ms): how long a reply can wait for the main thread; for Weir's main thread and Redis, the share of the
drain each ran / was ready but queued for a core / slept (schedstat).

| round | checkout | Weir | Weir main thread | Redis | broker | machine | decode | plan | apply | after | between | all between | some between | limit in flight | limit waited | loop delay | Weir main ran/queued/slept | Redis ran/queued/slept |
| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`;

const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;

const thread = (t: { ran: number; queued: number; slept: number }): string => [t.ran, t.queued, t.slept].map(pct).join(' / ');

export function overlapRow(round: number, checkout: string, o: OverlapSummary): string {
  const c = o.cores;
  const p = o.phases;
  const limit = o.limit ? [`${o.limit.meanInFlight.toFixed(0)} / ${o.limit.budget}`, pct(o.limit.waitingShare)] : ['–', '–'];
  return `| ${round} | ${checkout} | ${[c.weir, c.weirMain, c.redis, c.broker, c.machine].map((x) => x.toFixed(2)).join(' | ')} | ${[p.decode, p.plan, p.apply, p.after, p.between, o.allBetween, o.someBetween].map(pct).join(' | ')} | ${limit.join(' | ')} | ${o.loopDelayMs.p99.toFixed(0)} / ${o.loopDelayMs.max.toFixed(0)} | ${thread(o.threads.weirMain)} | ${thread(o.threads.redis)} |`;
}
