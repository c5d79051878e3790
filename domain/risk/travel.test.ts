import { describe, expect, it } from 'vitest';
import { distanceKm, packFix, travelSignals, unpackFix } from './travel.js';

const T = Date.UTC(2030, 0, 1, 12);
const london = { lat: 51.5074, lon: -0.1278 };
const paris = { lat: 48.8566, lon: 2.3522 };
const sydney = { lat: -33.8688, lon: 151.2093 };
const newYork = { lat: 40.7128, lon: -74.006 };

describe('impossible travel', () => {
  it('measures great-circle distances', () => {
    expect(Math.round(distanceKm(london, paris))).toBe(344);
    expect(Math.round(distanceKm(london, newYork) / 10) * 10).toBe(5570);
  });

  it('packs a position into one number the latest check wins', () => {
    const a = packFix({ at: T, ...london });
    const b = packFix({ at: T + 10_000, ...sydney });
    expect(b).toBeGreaterThan(a);
    expect(Number.isSafeInteger(b)).toBe(true);
    const back = unpackFix(a);
    expect(back.at).toBe(T);
    expect(distanceKm(back, london)).toBeLessThan(5);
  });

  it('Impossible travel detected: London to New York in 5 hours', () => {
    const r = travelSignals({ at: T, ...london }, { at: T + 5 * 3_600_000, ...newYork });
    expect(r.signals.map((s) => s.reason)).toEqual(['Impossible travel detected']);
    expect(r.speedKmh).toBeGreaterThan(900);
  });

  it('Physically impossible: {speed} km/h: London to Sydney in an hour', () => {
    const r = travelSignals({ at: T, ...london }, { at: T + 3_600_000, ...sydney });
    expect(r.signals.map((s) => s.reason)).toEqual([`Physically impossible: ${r.speedKmh} km/h`]);
    expect(r.speedKmh).toBeGreaterThan(16_000);
  });

  it('plausible trips and short hops raise nothing', () => {
    expect(travelSignals({ at: T, ...london }, { at: T + 8 * 3_600_000, ...newYork }).signals).toEqual([]);
    expect(travelSignals({ at: T, ...london }, { at: T + 60_000, ...paris }).signals).toHaveLength(1);
    expect(travelSignals({ at: T, ...london }, { at: T + 60_000, lat: 51.6, lon: -0.2 }).signals).toEqual([]);
    expect(travelSignals(null, { at: T, ...london }).signals).toEqual([]);
  });
});
