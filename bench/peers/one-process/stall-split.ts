/**
 * What the slow transactions of pair 3 waited behind: joins the stall log (stall-log.ts) with the
 * `--cpu-prof` profile of the same process and prints a markdown section.
 * `node --import tsx bench/peers/one-process/stall-split.ts <stall-log.json> <profile.cpuprofile>`
 *
 * Each profile sample is given to what owns its stack (the counters batch slice, the intake route,
 * the transaction route, the flusher) and, when a store runs under it, to that store (LMDB, the
 * embedded log, chDB); GC, idle and V8's own work have their own rows. A transaction of a phase
 * with counters is slow when it took longer than the p99 of the phases alone; the share of the
 * excess a row explains is its sample time inside the slow transactions' waits (due to answer) over
 * the length of those waits, beside the same share inside the waits of the phases alone.
 */
import { readFileSync } from 'node:fs';
import type { StallLogFile } from './stall-log.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const OWNERS: [RegExp, string][] = [
  [/pipelines\/counters\/(flusher|counter-table)/, 'flusher (chDB flush)'],
  [/pipelines\/(stage|counters\/)|pipelines\/(dead-letter|handler-failures)/, 'counters batch slice'],
  [/api\/counters\//, 'counters intake route'],
  [/api\/rules\/|domain\/rules\//, 'transaction route'],
];
const STORES: [RegExp, string][] = [
  [/infra\/windows\/lmdb|node_modules\/lmdb\//, 'LMDB'],
  [/infra\/bus\/embedded/, 'embedded log'],
  [/infra\/analytics|chdb|@clickhouse/, 'chDB'],
];
const SPECIAL: Record<string, string> = { '(garbage collector)': 'GC', '(idle)': 'idle (loop waiting)', '(program)': 'V8 / native (program)' };

function labels(profile: Profile): Map<number, string> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<number, string>();
  for (const n of profile.nodes) {
    const special = SPECIAL[n.callFrame.functionName];
    if (special && !n.callFrame.url) {
      out.set(n.id, special);
      continue;
    }
    let owner: string | undefined;
    let store: string | undefined;
    for (let id: number | undefined = n.id; id !== undefined && !owner; id = parent.get(id)) {
      const url = byId.get(id)!.callFrame.url;
      store ??= STORES.find(([re]) => re.test(url))?.[1];
      owner = OWNERS.find(([re]) => re.test(url))?.[1];
    }
    const who = owner ?? 'other (HTTP, express, node)';
    out.set(n.id, store ? `${store} under ${who}` : who);
  }
  return out;
}

/** Sample [time ms, label], time on CLOCK_MONOTONIC like the stall log. */
function samples(profile: Profile): [number, string][] {
  const label = labels(profile);
  let t = profile.startTime;
  return profile.samples.map((id, i) => {
    t += profile.timeDeltas[i]!;
    return [t / 1000, label.get(id)!];
  });
}

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(0.99 * (xs.length - 1))] ?? NaN;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;

/** Per label, the sample time (ms) falling inside the windows (sorted by start, may overlap: a sample counts once per window). */
function timeIn(windows: [number, number][], timed: [number, number, string][]): { total: number; by: Map<string, number> } {
  const by = new Map<string, number>();
  let total = 0;
  let first = 0;
  for (const [from, to] of windows) {
    total += to - from;
    while (first < timed.length && timed[first]![1] <= from) first++;
    for (let i = first; i < timed.length && timed[i]![0] < to; i++) {
      const [s, e, l] = timed[i]!;
      const overlap = Math.min(e, to) - Math.max(s, from);
      if (overlap > 0) by.set(l, (by.get(l) ?? 0) + overlap);
    }
  }
  return { total, by };
}

const [logFile, profileFile] = process.argv.slice(2);
if (!logFile || !profileFile) throw new Error('usage: stall-split.ts <stall-log.json> <profile.cpuprofile>');
const log = JSON.parse(readFileSync(logFile, 'utf8')) as StallLogFile;
const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as Profile;
// Each sample stands for the time until the next one, up to twice the profiler's 1 ms interval: a
// longer gap is time the thread was not sampled (off the CPU on a loaded machine), its own row.
const SAMPLE_CAP_MS = 2;
const sampled = samples(profile);
const timed: [number, number, string][] = sampled.map(([t, l], i) => [t, Math.min(sampled[i + 1]?.[0] ?? t + 1, t + SAMPLE_CAP_MS), l]);

const alone = log.phases.filter((p) => p.which === 'alone');
const loaded = log.phases.filter((p) => p.which === 'loaded');
const aloneP99 = p99(alone.flatMap((p) => p.transactions.map(([, ms]) => ms)));
const loadedP99 = p99(loaded.flatMap((p) => p.transactions.map(([, ms]) => ms)));
const waits = (ps: typeof alone, over: number): [number, number][] =>
  ps
    .flatMap((p) => p.transactions.filter(([, ms]) => ms > over).map(([due, ms]): [number, number] => [due, due + ms]))
    .sort((a, b) => a[0] - b[0]);
const slow = waits(loaded, aloneP99);
const slowSplit = timeIn(slow, timed);
const aloneSplit = timeIn(waits(alone, 0), timed);
const inPhases = (ps: typeof alone) => log.stalls.filter(([s]) => ps.some((p) => s >= p.from && s < p.to));
const stallSplit = timeIn(inPhases(loaded), timed);
const gcIn = (ps: typeof alone) => log.gc.filter((g) => ps.some((p) => g.start >= p.from && g.start < p.to));
const gcMs = (gs: StallLogFile['gc'], kind?: number) => gs.filter((g) => kind === undefined || g.kind === kind).reduce((a, g) => a + g.ms, 0);
const phaseMs = (ps: typeof alone) => ps.reduce((a, p) => a + p.to - p.from, 0);

// The main thread's sampled time per second of each kind of phase: what the counters add to it.
const phaseSplit = (ps: typeof alone) => timeIn(ps.map((p): [number, number] => [p.from, p.to]), timed);
const loadedAll = phaseSplit(loaded);
const aloneAll = phaseSplit(alone);
const perSecond = (x: { total: number; by: Map<string, number> }, label: string) => ((x.by.get(label) ?? 0) * 1000) / x.total;
const rows = [...new Set([...slowSplit.by.keys(), ...aloneSplit.by.keys(), ...stallSplit.by.keys()])].sort((a, b) => (slowSplit.by.get(b) ?? 0) - (slowSplit.by.get(a) ?? 0));
const pct = (x: number | undefined, of: number) => `${((100 * (x ?? 0)) / of).toFixed(1)} %`;
const out: string[] = [];
out.push(`Transactions p99: ${loadedP99.toFixed(1)} ms in the phases with counters, ${aloneP99.toFixed(1)} ms alone (${(loadedP99 / aloneP99).toFixed(2)}×).`);
out.push(`Slow transactions (phases with counters, over the alone p99): ${slow.length}, waiting ${slowSplit.total.toFixed(0)} ms in all.`);
out.push(`Loop delay p99 (monitorEventLoopDelay, median of phases): ${median(loaded.map((p) => p.loopDelayP99Ms)).toFixed(1)} ms with counters, ${median(alone.map((p) => p.loopDelayP99Ms)).toFixed(1)} ms alone.`);
const cpuPerSecond = (ps: typeof alone) => ps.reduce((a, p) => a + p.cpuMs, 0) / (phaseMs(ps) / 1000);
out.push(`Process CPU (every thread): ${cpuPerSecond(loaded).toFixed(0)} ms a second with counters, ${cpuPerSecond(alone).toFixed(0)} ms alone.`);
const sched = (ps: typeof alone, k: 'mainOnCpuMs' | 'mainRunQueueMs') => ps.reduce((a, p) => a + (p[k] ?? NaN), 0) / (phaseMs(ps) / 1000);
out.push(`Main thread (schedstat): on a CPU ${sched(loaded, 'mainOnCpuMs').toFixed(0)} ms a second and waiting in the run queue ${sched(loaded, 'mainRunQueueMs').toFixed(0)} ms a second with counters; ${sched(alone, 'mainOnCpuMs').toFixed(0)} and ${sched(alone, 'mainRunQueueMs').toFixed(0)} alone.`);
for (const [name, ps] of [['with counters', loaded], ['alone', alone]] as const) {
  const st = inPhases(ps);
  const gs = gcIn(ps);
  const secs = phaseMs(ps) / 1000;
  out.push(
    `Phases ${name}: ${st.length} stalls over ${log.stallMs} ms (${(st.reduce((a, [s, e]) => a + e - s, 0) / secs).toFixed(0)} ms of stall a second); GC ${(gcMs(gs) / secs).toFixed(0)} ms a second (scavenges ${(gcMs(gs, 1) / secs).toFixed(0)}, mark-compact ${(gcMs(gs, 2) / secs).toFixed(0)}, incremental ${(gcMs(gs, 4) / secs).toFixed(0)}), longest GC pause ${Math.max(0, ...gs.map((g) => g.ms)).toFixed(1)} ms.`,
  );
}
out.push('');
out.push('| what ran (profile samples) | share of the slow transactions\' waits | share of the alone transactions\' waits | share of the stalls with counters | main thread ms a second, with counters − alone |');
out.push('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) out.push(`| ${r} | ${pct(slowSplit.by.get(r), slowSplit.total)} | ${pct(aloneSplit.by.get(r), aloneSplit.total)} | ${pct(stallSplit.by.get(r), stallSplit.total)} | ${(perSecond(loadedAll, r) - perSecond(aloneAll, r)).toFixed(0)} |`);
const unsampled = (s: { total: number; by: Map<string, number> }) => s.total - [...s.by.values()].reduce((a, b) => a + b, 0);
out.push(`| (no sample: thread off the CPU) | ${pct(unsampled(slowSplit), slowSplit.total)} | ${pct(unsampled(aloneSplit), aloneSplit.total)} | ${pct(unsampled(stallSplit), stallSplit.total)} | ${((unsampled(loadedAll) * 1000) / loadedAll.total - (unsampled(aloneAll) * 1000) / aloneAll.total).toFixed(0)} |`);
console.log(out.join('\n'));
