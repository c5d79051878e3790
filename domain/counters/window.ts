import type { CounterWindow } from '../../schemas/http/counters.js';
import { WINDOW_UNITS } from '../windows/units.js';

/**
 * Rolling-window arithmetic. Time is cut into buckets of 1 s for windows up to 24 hours and 60 s
 * beyond, so a value is exact at the window's edges to within one bucket. The window at `now`
 * covers (now - window, now]: the bucket holding the instant `now - window` is the newest one out.
 * With a 1-hour window at 14:05:00 an event at 13:05:01 counts and one at 13:05:00 does not.
 */

export const FINE_BUCKET_MS = 1_000;
export const COARSE_BUCKET_MS = 60_000;
const FINE_LIMIT_MS = 24 * 3_600_000;

export interface WindowSpec {
  windowMs: number;
  bucketMs: number;
}

export function windowSpec(w: CounterWindow): WindowSpec {
  const windowMs = w.amount * WINDOW_UNITS[w.unit];
  return { windowMs, bucketMs: windowMs <= FINE_LIMIT_MS ? FINE_BUCKET_MS : COARSE_BUCKET_MS };
}

export const bucketOf = (ts: number, spec: WindowSpec): number => Math.floor(ts / spec.bucketMs);

/** Lowest bucket inside the window at `now`; older buckets are out (and evicted by the store). */
export const floorBucket = (now: number, spec: WindowSpec): number => Math.floor((now - spec.windowMs) / spec.bucketMs) + 1;

/** First instant at which `bucket` is out of the window, i.e. its events stop counting. */
export const expiresAt = (bucket: number, spec: WindowSpec): number => bucket * spec.bucketMs + spec.windowMs;
