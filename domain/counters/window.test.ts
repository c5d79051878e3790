import { describe, expect, it } from 'vitest';
import { bucketOf, expiresAt, floorBucket, windowSpec, COARSE_BUCKET_MS, FINE_BUCKET_MS } from './window.js';

const at = (hms: string) => Date.parse(`2025-03-01T${hms}Z`);
const inWindow = (event: number, now: number, spec: ReturnType<typeof windowSpec>) => bucketOf(event, spec) >= floorBucket(now, spec);

describe('window arithmetic', () => {
  it('uses 1 s buckets up to 24 hours and 60 s buckets beyond', () => {
    expect(windowSpec({ amount: 24, unit: 'hours' }).bucketMs).toBe(FINE_BUCKET_MS);
    expect(windowSpec({ amount: 1441, unit: 'minutes' }).bucketMs).toBe(COARSE_BUCKET_MS);
    expect(windowSpec({ amount: 90, unit: 'days' })).toEqual({ windowMs: 90 * 86_400_000, bucketMs: COARSE_BUCKET_MS });
  });

  it('a 1-hour window at 14:05 covers (13:05, 14:05]', () => {
    const spec = windowSpec({ amount: 1, unit: 'hours' });
    const now = at('14:05:00');
    expect(inWindow(at('13:05:01'), now, spec)).toBe(true); // just inside
    expect(inWindow(at('13:05:00'), now, spec)).toBe(false); // the edge itself is out
    expect(inWindow(at('13:04:59.999'), now, spec)).toBe(false); // just outside
    expect(inWindow(at('14:05:00'), now, spec)).toBe(true);
    expect(inWindow(at('14:05:00.999'), now, spec)).toBe(true);
  });

  it.each([
    ['one second up to 24 hours', { amount: 24, unit: 'hours' } as const, 1000, [0, 1, 250, 999, 1000, 1500]],
    ['one minute beyond 24 hours', { amount: 7, unit: 'days' } as const, 60_000, [0, 1, 30_000, 59_999]],
  ])('is exact at the edges to within %s', (_what, window, bucketMs, offsets) => {
    const spec = windowSpec(window);
    for (const offset of offsets) {
      const now = at('12:00:00') + offset;
      const edge = now - spec.windowMs;
      expect(inWindow(edge + bucketMs, now, spec)).toBe(true);
      expect(inWindow(edge, now, spec)).toBe(false);
    }
  });

  it('a bucket expires exactly when the floor passes it', () => {
    const spec = windowSpec({ amount: 1, unit: 'hours' });
    const b = bucketOf(at('13:05:00.400'), spec);
    const t = expiresAt(b, spec);
    expect(t).toBe(at('14:05:00'));
    expect(floorBucket(t - 1, spec)).toBeLessThanOrEqual(b);
    expect(floorBucket(t, spec)).toBeGreaterThan(b);
  });
});
