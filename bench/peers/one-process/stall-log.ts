/**
 * What the event loop of the Weir process did while transactions waited (pair 3, `WEIR_STALL_LOG=<file>`).
 * Records, on the monotonic clock that `--cpu-prof` stamps its samples with (CLOCK_MONOTONIC, ms):
 * - stalls: gaps over STALL_MS between turns of a 1 ms timer chain (the loop was busy or blocked);
 * - gc: PerformanceObserver 'gc' entries (start, duration, kind);
 * - phases: each phase's span, its monitorEventLoopDelay p99 / max and the process's CPU time;
 * - the transactions of each phase (due time and latency, from the client on the same clock).
 * bench/peers/one-process/stall-split.ts joins this with the CPU profile.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const STALL_MS = 10;

/** CLOCK_MONOTONIC in ms, the clock of V8's profile samples and of process.hrtime in every process. */
export const monoMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The main thread's [on-CPU, run-queue wait] ns so far (Linux schedstat; its tid is the pid). */
const mainSchedstat = (): [number, number] => {
  const [onCpu, waiting] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
  return [onCpu!, waiting!];
};

export interface PhaseLog {
  which: 'loaded' | 'alone';
  from: number;
  to: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** The process's CPU time (user + system, every thread) over the phase. */
  cpuMs: number;
  /** The main thread's time on a CPU and waiting in the run queue for one (/proc schedstat). */
  mainOnCpuMs: number;
  mainRunQueueMs: number;
  /** [due, latency] of each transaction, ms. */
  transactions: [number, number][];
}

export interface StallLogFile {
  stallMs: number;
  stalls: [number, number][];
  gc: { start: number; ms: number; kind: number }[];
  phases: PhaseLog[];
}

export function startStallLog(file: string) {
  const stalls: [number, number][] = [];
  const gc: StallLogFile['gc'] = [];
  const phases: PhaseLog[] = [];
  // performance entries are stamped relative to performance.timeOrigin; this maps them to monoMs.
  const perfToMono = monoMs() - performance.now();
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) gc.push({ start: e.startTime + perfToMono, ms: e.duration, kind: e.detail?.kind ?? 0 });
  });
  observer.observe({ entryTypes: ['gc'] });
  let last = monoMs();
  let probe: NodeJS.Timeout | undefined;
  const tick = (): void => {
    const now = monoMs();
    if (now - last > STALL_MS) stalls.push([last, now]);
    last = now;
    probe = setTimeout(tick, 1);
  };
  probe = setTimeout(tick, 1);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();

  return {
    /** Runs one phase and logs its span, loop delay and transactions. */
    async phase<R extends { timeline?: [number, number][] }>(which: PhaseLog['which'], run: () => Promise<R>): Promise<R> {
      delay.reset();
      const from = monoMs();
      const cpu = process.cpuUsage();
      const sched = mainSchedstat();
      const r = await run();
      const used = process.cpuUsage(cpu);
      const [onCpu, waiting] = mainSchedstat();
      phases.push({
        which,
        from,
        to: monoMs(),
        loopDelayP99Ms: delay.percentile(99) / 1e6,
        loopDelayMaxMs: delay.max / 1e6,
        cpuMs: (used.user + used.system) / 1000,
        mainOnCpuMs: (onCpu - sched[0]) / 1e6,
        mainRunQueueMs: (waiting - sched[1]) / 1e6,
        transactions: r.timeline ?? [],
      });
      return r;
    },
    stop(): void {
      clearTimeout(probe);
      delay.disable();
      observer.disconnect();
      const out: StallLogFile = { stallMs: STALL_MS, stalls, gc, phases };
      writeFileSync(file, JSON.stringify(out));
    },
  };
}
