import type { Signal } from './signal.js';

/**
 * Impossible travel between two geolocated checks of one user. The last position is kept as one
 * number (a window-store maximum): time in 10-second steps since 2020 in the high bits, then a
 * 12-bit latitude and a 13-bit longitude cell (about 5 km), so the latest check always wins.
 */

const EPOCH = Date.UTC(2020, 0, 1);
const STEP_MS = 10_000;
const LAT_CELLS = 2 ** 12;
const LON_CELLS = 2 ** 13;

export interface Fix {
  at: number;
  lat: number;
  lon: number;
}

export function packFix(f: Fix): number {
  const t = Math.max(0, Math.floor((f.at - EPOCH) / STEP_MS));
  const la = Math.min(LAT_CELLS - 1, Math.floor(((f.lat + 90) / 180) * LAT_CELLS));
  const lo = Math.min(LON_CELLS - 1, Math.floor(((f.lon + 180) / 360) * LON_CELLS));
  return t * LAT_CELLS * LON_CELLS + la * LON_CELLS + lo;
}

export function unpackFix(v: number): Fix {
  const cells = LAT_CELLS * LON_CELLS;
  const t = Math.floor(v / cells);
  const rest = v - t * cells;
  const la = Math.floor(rest / LON_CELLS);
  const lo = rest - la * LON_CELLS;
  return { at: EPOCH + t * STEP_MS, lat: ((la + 0.5) / LAT_CELLS) * 180 - 90, lon: ((lo + 0.5) / LON_CELLS) * 360 - 180 };
}

/** Great-circle distance in km (haversine). */
export function distanceKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Faster than an airliner door to door is impossible travel; faster than any aircraft is physically impossible. */
export const IMPOSSIBLE_KMH = 900;
export const PHYSICALLY_IMPOSSIBLE_KMH = 2_000;
/** Within this distance, geolocation noise is not travel. */
const MIN_DISTANCE_KM = 300;

export function travelSignals(previous: Fix | null, current: Fix): { signals: Signal[]; speedKmh: number | null } {
  if (!previous || current.at < previous.at) return { signals: [], speedKmh: null };
  const km = distanceKm(previous, current);
  if (km < MIN_DISTANCE_KM) return { signals: [], speedKmh: null };
  // The stored time has 10-second steps: the interval is at least one step.
  const hours = Math.max(STEP_MS, current.at - previous.at) / 3_600_000;
  const speed = Math.round(km / hours);
  if (speed > PHYSICALLY_IMPOSSIBLE_KMH) return { signals: [{ key: 'velocity.physically_impossible', reason: `Physically impossible: ${speed} km/h` }], speedKmh: speed };
  if (speed > IMPOSSIBLE_KMH) return { signals: [{ key: 'velocity.impossible_travel', reason: 'Impossible travel detected' }], speedKmh: speed };
  return { signals: [], speedKmh: speed };
}
