/**
 * Where the counter stage's time goes while it drains (issue 31): every 100 ms, the CPU of this
 * process (all threads, and its main thread), of redis-server and of the Kafka broker from /proc,
 * the apply limit's weight in flight and calls waiting, and what each partition is doing. A
 * partition is in one phase at a time: decoding its batch, planning it (until its first apply
 * call), applying it (planning the rest alongside when it is sent in slices; its chunks waiting on
 * the limit or on Redis), the rest of its handler (due sets, crossings), or between batches (its
 * commit, the fetch, or kafkajs's wait for the other partitions of the same fetch).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Bus } from '../../infra/bus/types.js';
import type { InFlightLimit } from '../../infra/in-flight-limit.js';
import type { WindowStore } from '../../infra/windows/types.js';

const PHASES = ['decode', 'plan', 'apply', 'after', 'between'] as const;
type Phase = (typeof PHASES)[number];

export interface OverlapSummary {
  seconds: number;
  /** Cores busy, by process: 1 = one core all the time. */
  cores: { weir: number; weirMain: number; redis: number; broker: number; machine: number };
  /** Share of partition-time in each phase. */
  phases: Record<Phase, number>;
  /** Share of samples where every partition was between batches (commit or fetch), and where some waited for others. */
  allBetween: number;
  someBetween: number;
  limit?: { meanInFlight: number; budget: number; waitingShare: number; meanWaiting: number };
  /**
   * Of the drain's wall time, the share a thread ran, was ready but waited for a core (the
   * machine's other work), or slept (nothing to do: Weir waiting on Redis or Kafka, Redis on Weir).
   */
  threads: Record<'weirMain' | 'redis', { ran: number; queued: number; slept: number }>;
  /** Event-loop delay (ms): how long a reply from Redis can wait for the main thread to read it. */
  loopDelayMs: { p50: number; p99: number; max: number };
}

/** User + system clock ticks (10 ms) of a process or thread from its stat file. */
const ticks = (statFile: string): number => {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
/** Nanoseconds a thread ran and was ready but waited for a core (/proc/<pid>/schedstat). */
const sched = (file: string): { ran: number; queued: number } => {
  const [ran, queued] = readFileSync(file, 'utf8').split(' ').map(Number);
  return { ran: ran!, queued: queued! };
};
/** Busy and total ticks of the whole machine (/proc/stat's first line). */
const machineTicks = (): { busy: number; total: number } => {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
};

/** `limit` is the store's apply limit when the checkout lets a caller pass one (else its figures are absent). */
export function watchOverlap(deps: { bus: Bus; windows: WindowStore; limit?: { limit: InFlightLimit; budget: number }; redisPid: number; brokerPid: number }) {
  const phase = new Map<number, Phase>();
  const partitionOf = new AsyncLocalStorage<number>();
  const bus: Bus = {
    ...deps.bus,
    subscribe: (options) =>
      deps.bus.subscribe({
        ...options,
        eachBatch: (batch) => {
          phase.set(batch.partition, 'decode');
          return partitionOf.run(batch.partition, () => options.eachBatch(batch)).finally(() => phase.set(batch.partition, 'between'));
        },
      }),
  };
  const enter = (p: Phase): void => {
    const partition = partitionOf.getStore();
    if (partition !== undefined) phase.set(partition, p);
  };
  const partitionPhase = (): Phase | undefined => {
    const partition = partitionOf.getStore();
    return partition === undefined ? undefined : phase.get(partition);
  };
  // A handler that sends its batch in slices plans on while the first runs: 'apply' is from its
  // first apply call until it goes on to sync or schedule (the store has answered every slice).
  const windows: WindowStore = {
    ...deps.windows,
    apply: (requests, options) => {
      if (partitionPhase() === 'plan') enter('apply');
      return deps.windows.apply(requests, options);
    },
    synced: () => {
      enter('after');
      return deps.windows.synced();
    },
    schedule: (scope, queue, entries) => {
      enter('after');
      return deps.windows.schedule(scope, queue, entries);
    },
  };

  interface Sample {
    at: number;
    weir: number;
    weirMain: number;
    redis: number;
    broker: number;
    machine: { busy: number; total: number };
    weirMainSched: { ran: number; queued: number };
    redisSched: { ran: number; queued: number };
  }
  const read = (): Sample => ({
    at: performance.now(),
    weir: ticks('/proc/self/stat'),
    weirMain: ticks(`/proc/self/task/${process.pid}/stat`),
    redis: ticks(`/proc/${deps.redisPid}/stat`),
    broker: ticks(`/proc/${deps.brokerPid}/stat`),
    machine: machineTicks(),
    weirMainSched: sched(`/proc/self/task/${process.pid}/schedstat`),
    redisSched: sched(`/proc/${deps.redisPid}/schedstat`),
  });
  const counts = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  let samples = 0;
  let allBetween = 0;
  let someBetween = 0;
  let inFlight = 0;
  let waitingSamples = 0;
  let waiting = 0;
  let first: Sample | undefined;
  let timer: NodeJS.Timeout | undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  const sample = (): void => {
    if (phase.size === 0) return;
    samples++;
    let between = 0;
    for (const p of phase.values()) {
      counts[p]++;
      if (p === 'between') between++;
    }
    if (between === phase.size) allBetween++;
    else if (between > 0) someBetween++;
    if (!deps.limit) return;
    inFlight += deps.limit.limit.inFlight;
    waiting += deps.limit.limit.waiting;
    if (deps.limit.limit.waiting > 0) waitingSamples++;
  };

  return {
    bus,
    windows,
    /** Called by the stage's handler as it starts: the batch is decoded, planning begins. */
    planning: (): void => enter('plan'),
    start(): void {
      first = read();
      loopDelay.enable();
      timer = setInterval(sample, 100);
    },
    stop(): OverlapSummary {
      clearInterval(timer);
      loopDelay.disable();
      const last = read();
      const s = (last.at - first!.at) / 1000;
      const cores = (d: number): number => (d * 0.01) / s;
      const shares = (a: { ran: number; queued: number }, b: { ran: number; queued: number }) => {
        const ran = (b.ran - a.ran) / 1e9 / s;
        const queued = (b.queued - a.queued) / 1e9 / s;
        return { ran, queued, slept: Math.max(0, 1 - ran - queued) };
      };
      const partitionSamples = [...Object.values(counts)].reduce((a, b) => a + b, 0) || 1;
      return {
        seconds: s,
        cores: {
          weir: cores(last.weir - first!.weir),
          weirMain: cores(last.weirMain - first!.weirMain),
          redis: cores(last.redis - first!.redis),
          broker: cores(last.broker - first!.broker),
          machine: ((last.machine.busy - first!.machine.busy) / (last.machine.total - first!.machine.total)) * cpus().length,
        },
        phases: Object.fromEntries(PHASES.map((p) => [p, counts[p] / partitionSamples])) as Record<Phase, number>,
        allBetween: allBetween / (samples || 1),
        someBetween: someBetween / (samples || 1),
        threads: { weirMain: shares(first!.weirMainSched, last.weirMainSched), redis: shares(first!.redisSched, last.redisSched) },
        loopDelayMs: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
        ...(deps.limit ? { limit: { meanInFlight: inFlight / (samples || 1), budget: deps.limit.budget, waitingShare: waitingSamples / (samples || 1), meanWaiting: waiting / (samples || 1) } } : {}),
      };
    },
  };
}
