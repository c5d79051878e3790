import type { SeriesUpdate } from '../windows/series.js';
import type { CounterEvent } from '../../schemas/http/counters.js';
import { matchingCounters, type CompiledConfig } from './compile.js';
import { bucketOf, expiresAt, floorBucket } from './window.js';

/** A counter with alert thresholds that an event changes, with the change. */
export interface Watched {
  series: string;
  delta: number;
  thresholds: number[];
  floor: number;
}

export interface PlannedEvent {
  updates: SeriesUpdate[];
  /** The first instant at which this event leaves a window and the entity's values drop; null when it enters none. */
  expiresAt: number | null;
  watched: readonly Watched[];
}

/** Most counters have no thresholds: their events share this instead of an empty array each. */
const NONE_WATCHED: readonly Watched[] = Object.freeze([]);

/**
 * What one event does to its entity's series at `now`. A count adds 1 and a sum adds `value` to the
 * bucket of occurred_at, so a late event lands in its own bucket; one older than a counter's window
 * changes nothing there. last_seen keeps the latest occurred_at. `at` is occurred_at in epoch ms,
 * for a caller that has parsed it already.
 */
export function planEvent(compiled: CompiledConfig, event: CounterEvent, now: number, at = Date.parse(event.occurred_at)): PlannedEvent {
  const counters = matchingCounters(compiled, event);
  // Sized to the counters, not grown by push (16 slots at the first): the updates live until the
  // store has applied them, and every slot of them is copied by the young-generation collector.
  const updates = new Array<SeriesUpdate>(counters.length);
  let n = 0;
  let first = Infinity;
  let watched: Watched[] | undefined;
  for (const c of counters) {
    if (!c.spec) {
      updates[n++] = { kind: 'max', series: c.series, value: at };
      continue;
    }
    const bucket = bucketOf(at, c.spec);
    const floor = floorBucket(now, c.spec);
    if (bucket < floor) continue;
    const delta = c.def.aggregate === 'count' ? 1 : (event.value ?? 0);
    updates[n++] = { kind: 'sum', series: c.series, bucket, delta, floor };
    first = Math.min(first, expiresAt(bucket, c.spec));
    if (c.def.alert_thresholds.length > 0) (watched ??= []).push({ series: c.series, delta, thresholds: c.def.alert_thresholds, floor });
  }
  updates.length = n;
  return { updates, expiresAt: first === Infinity ? null : first, watched: watched ?? NONE_WATCHED };
}

/** True when a value moved from one side of a threshold to the other (reaching it counts as crossing). */
export const crossesThreshold = (before: number, after: number, thresholds: number[]): boolean => thresholds.some((t) => before >= t !== after >= t);
