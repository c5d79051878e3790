import type { Entity } from '../memory/state.js';
import { SumSeries } from '../memory/sum-series.js';

/**
 * An entity as the LMDB store keeps it: [touchedAt, [name, packed series, ...], [name, max, ...]],
 * each series packed as SumSeries.toJSON() numbers. Arrays, not objects: lmdb-js encodes values
 * with msgpackr without shared structures, which writes every object as a record with its
 * definition inline and reads it by building a reader for that definition each time; an entity of
 * three objects paid that on every read and write (issue 31: recordDefinition alone ~6 % of a
 * counters drain's CPU on LMDB). Arrays of strings and numbers carry no definitions.
 */
type Packed = [touchedAt: number, sums: (string | number[])[], maxes: (string | number)[]];

/** The object form written before: {t touched-at, s series by name, m maxima by name}; still read. */
interface Legacy {
  t: number;
  s: Record<string, number[]>;
  m: Record<string, number>;
}

export type StoredEntity = Packed | Legacy;

export const touchedAtOf = (v: StoredEntity): number => (Array.isArray(v) ? v[0] : v.t);

export function decodeEntity(v: StoredEntity): Entity {
  if (!Array.isArray(v)) {
    return {
      touchedAt: v.t,
      sums: new Map(Object.entries(v.s).map(([name, packed]) => [name, SumSeries.fromJSON(packed)])),
      maxes: new Map(Object.entries(v.m)),
    };
  }
  const [touchedAt, sums, maxes] = v;
  const e: Entity = { touchedAt, sums: new Map(), maxes: new Map() };
  for (let i = 0; i < sums.length; i += 2) e.sums.set(sums[i] as string, SumSeries.fromJSON(sums[i + 1] as number[]));
  for (let i = 0; i < maxes.length; i += 2) e.maxes.set(maxes[i] as string, maxes[i + 1] as number);
  return e;
}

export function encodeEntity(e: Entity): StoredEntity {
  const sums: (string | number[])[] = [];
  for (const [name, s] of e.sums) sums.push(name, s.toJSON());
  const maxes: (string | number)[] = [];
  for (const [name, max] of e.maxes) maxes.push(name, max);
  return [e.touchedAt, sums, maxes];
}
