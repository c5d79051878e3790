import type { SeriesRead } from '../windows/series.js';
import type { CompiledConfig } from './compile.js';
import { floorBucket } from './window.js';

export type CounterValue = number | string | null;

/** Store reads that give every counter of the configuration its value at `now`, in counter order. */
export function liveReads(compiled: CompiledConfig, now: number): SeriesRead[] {
  return compiled.counters.map((c) => (c.spec ? { kind: 'sum', series: c.series, floor: floorBucket(now, c.spec) } : { kind: 'max', series: c.series }));
}

/** Store answers as counter values: numbers for count and sum, RFC 3339 or null for last_seen. */
export function liveValues(compiled: CompiledConfig, answers: (number | null)[]): Record<string, CounterValue> {
  const out: Record<string, CounterValue> = {};
  compiled.counters.forEach((c, i) => {
    const v = answers[i] ?? null;
    out[c.def.name] = c.spec ? (v ?? 0) : v === null ? null : new Date(v).toISOString();
  });
  return out;
}
