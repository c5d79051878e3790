import { WINDOW_UNITS, type WindowUnit } from '../windows/units.js';
import type { SeriesRead, SeriesUpdate } from '../windows/series.js';

/**
 * Window arithmetic of windowState aggregates. A window is cut into 60 buckets; an aggregate sums
 * the buckets from the one holding `now` back 59 more, so its edge is exact to 1/60 of the window
 * (a 1-hour window moves in 1-minute steps). The SQL back end uses the same buckets.
 */
export const BUCKETS = 60;
/** Rule windows count in minutes at least: 60 buckets of a seconds window would be finer than the clock's use here. */
export const RULE_WINDOW_UNITS = ['minutes', 'hours', 'days'] as const satisfies readonly WindowUnit[];
export type RuleWindowUnit = (typeof RULE_WINDOW_UNITS)[number];

export interface WindowAggregate {
  name: string;
  function: 'count' | 'sum';
  column?: string;
  window: { amount: number; unit: RuleWindowUnit };
}

export const windowMs = (w: WindowAggregate['window']): number => w.amount * WINDOW_UNITS[w.unit];
export const bucketMs = (w: WindowAggregate['window']): number => Math.ceil(windowMs(w) / BUCKETS);
const floorAt = (width: number, now: number) => Math.floor(now / width) - (BUCKETS - 1);

/** Series name of an aggregate; `generation` separates a re-created table from its predecessor. */
export const seriesName = (table: string, generation: string, aggregate: string): string => `ct:${table}:${generation}:${aggregate}`;

/** Updates one appended row makes: count adds 1, sum adds the column (a NULL adds nothing). */
export function rowUpdates(aggregates: WindowAggregate[], series: (name: string) => string, at: number, row: Record<string, unknown>, now: number): SeriesUpdate[] {
  const updates: SeriesUpdate[] = [];
  for (const a of aggregates) {
    const width = bucketMs(a.window);
    const delta = a.function === 'count' ? 1 : row[a.column!];
    if (typeof delta !== 'number' || delta === 0) continue;
    updates.push({ kind: 'sum', series: series(a.name), bucket: Math.floor(at / width), delta, floor: floorAt(width, now) });
  }
  return updates;
}

export function aggregateReads(aggregates: WindowAggregate[], series: (name: string) => string, now: number): SeriesRead[] {
  return aggregates.map((a) => ({ kind: 'sum', series: series(a.name), floor: floorAt(bucketMs(a.window), now) }));
}
