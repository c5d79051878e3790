/** CPU time of the processes a pair runs, to put CPU per event or per request beside its figure. */
import { readdir, readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';

/** User + system CPU time (µs) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
export async function processCpuMicros(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** CPU time (µs) a Redis server has used, by its own account (INFO cpu). */
export async function redisCpuMicros(url: string): Promise<number> {
  const r = new Redis(url, { lazyConnect: true });
  try {
    await r.connect();
    const info = await r.info('cpu');
    const seconds = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
  } finally {
    r.disconnect();
  }
}

/** Time (µs) a process's threads spent on a core and runnable but waiting for one: its main thread, and all its threads together. */
export interface CoreTime {
  mainRun: number;
  mainWait: number;
  run: number;
  wait: number;
}

/**
 * CoreTime of a process from the scheduler's accounts (/proc/<pid>/task/<tid>/schedstat: ns on a
 * core, ns waiting on a run queue). A thread that ends between two reads is missing from the second,
 * so their difference undercounts it: read over a span the process's threads outlive (a drain's).
 */
export async function coreMicros(pid: number): Promise<CoreTime> {
  const t: CoreTime = { mainRun: 0, mainWait: 0, run: 0, wait: 0 };
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const text = await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').catch(() => '');
    if (!text) continue;
    const [run, wait] = text.split(' ').map((n) => Number(n) / 1000) as [number, number];
    t.run += run;
    t.wait += wait;
    if (tid === String(pid)) {
      t.mainRun = run;
      t.mainWait = wait;
    }
  }
  return t;
}

/** The process id of a Redis server (INFO server). */
export async function redisPid(url: string): Promise<number> {
  const r = new Redis(url, { lazyConnect: true });
  try {
    await r.connect();
    return Number(/process_id:(\d+)/.exec(await r.info('server'))?.[1]);
  } finally {
    r.disconnect();
  }
}

/** Two reads of coreMicros as shares of the wall time between them, `on a core % / waiting for one %`. */
export function coreShares(a: CoreTime, b: CoreTime, wallUs: number): { main: string; all: string } {
  const pct = (x: number): string => `${Math.round((100 * x) / wallUs)} %`;
  return { main: `${pct(b.mainRun - a.mainRun)} / ${pct(b.mainWait - a.mainWait)}`, all: `${pct(b.run - a.run)} / ${pct(b.wait - a.wait)}` };
}

/** The machine's CPU time (clock ticks over all cores) idle and in all, from /proc/stat. */
export interface MachineTimes {
  idle: number;
  total: number;
}

export async function machineTimes(): Promise<MachineTimes> {
  const ticks = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the cores' unused time.
  return { idle: ticks[3]! + ticks[4]!, total: ticks.reduce((a, b) => a + b, 0) };
}

/** The share of the machine's cores idle between two reads of machineTimes, `N %`. */
export const idleShare = (a: MachineTimes, b: MachineTimes): string => `${Math.round((100 * (b.idle - a.idle)) / Math.max(1, b.total - a.total))} %`;
