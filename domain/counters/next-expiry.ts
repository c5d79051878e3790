import type { SeriesRead } from '../windows/series.js';
import type { CompiledConfig } from './compile.js';
import { expiresAt, floorBucket } from './window.js';

/** The flush tick an expiry instant is handled at: the first at or after it. */
export const expiryTick = (at: number, flushMs: number): number => Math.ceil(at / flushMs) * flushMs;

/** Store reads that find, per windowed counter, its lowest bucket still live at `now`. */
export function nextExpiryReads(compiled: CompiledConfig, now: number): SeriesRead[] {
  const reads: SeriesRead[] = [];
  for (const c of compiled.counters) if (c.spec) reads.push({ kind: 'lowest', series: c.series, floor: floorBucket(now, c.spec) });
  return reads;
}

/**
 * The flush tick at which the entity's values next drop: the earliest at which one of those lowest
 * buckets leaves its window (after `now`, as every bucket read is live at `now`), or null when no
 * windowed counter holds a bucket.
 */
export function nextExpiryTick(compiled: CompiledConfig, lowest: (number | null)[]): number | null {
  let next: number | null = null;
  let i = 0;
  for (const c of compiled.counters) {
    if (!c.spec) continue;
    const bucket = lowest[i++];
    if (bucket === null || bucket === undefined) continue;
    const at = expiresAt(bucket, c.spec);
    if (next === null || at < next) next = at;
  }
  return next === null ? null : expiryTick(next, compiled.flushMs);
}
