import type { SeriesUpdate } from '../windows/series.js';
import type { CounterEvent } from '../../schemas/http/counters.js';
import { matchingCounters, type CompiledConfig } from './compile.js';
import { bucketOf, expiresAt, floorBucket } from './window.js';

export interface PlannedEvent {
  updates: SeriesUpdate[];
  /** Instants at which this event leaves a window and the entity's values drop. */
  expiries: number[];
  /** Counters with alert thresholds that this event changes, with the change. */
  watched: { series: string; delta: number; thresholds: number[]; floor: number }[];
}

/**
 * What one event does to its entity's series at `now`. A count adds 1 and a sum adds `value` to the
 * bucket of occurred_at, so a late event lands in its own bucket; one older than a counter's window
 * changes nothing there. last_seen keeps the latest occurred_at.
 */
export function planEvent(compiled: CompiledConfig, event: CounterEvent, now: number): PlannedEvent {
  const at = Date.parse(event.occurred_at);
  const planned: PlannedEvent = { updates: [], expiries: [], watched: [] };
  for (const c of matchingCounters(compiled, event)) {
    if (!c.spec) {
      planned.updates.push({ kind: 'max', series: c.series, value: at });
      continue;
    }
    const bucket = bucketOf(at, c.spec);
    const floor = floorBucket(now, c.spec);
    if (bucket < floor) continue;
    const delta = c.def.aggregate === 'count' ? 1 : (event.value ?? 0);
    planned.updates.push({ kind: 'sum', series: c.series, bucket, delta, floor });
    planned.expiries.push(expiresAt(bucket, c.spec));
    if (c.def.alert_thresholds.length > 0) planned.watched.push({ series: c.series, delta, thresholds: c.def.alert_thresholds, floor });
  }
  return planned;
}

/** True when a value moved from one side of a threshold to the other (reaching it counts as crossing). */
export const crossesThreshold = (before: number, after: number, thresholds: number[]): boolean => thresholds.some((t) => before >= t !== after >= t);
