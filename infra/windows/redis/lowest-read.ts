import type { SeriesRead } from '../types.js';
import type { RedisClient } from './client.js';

/**
 * Lowest reads of the Redis store, found by the client (scripts.ts READ only evicts for them).
 * An entity with a lowest read gets one `HSCAN key 0 COUNT 512` sent right behind its READ call on
 * the same connection, so it sees the hash after the evictions: a listpack hash answers whole, a
 * hashtable one of up to 512 fields too (the scan runs until it has COUNT fields or its cursor is
 * back to 0). A cursor not 0 means a larger hash, a busy entity's: its series are probed upward
 * from their floors by PROBE_LOWEST, a second call answering a bound, as the port allows
 * (types.ts). Between the READ and the HSCAN an apply may write the hash; the answer is then that
 * of the later state, which the flusher re-reads anyway, as an apply re-marks the entity dirty.
 */
export const SCAN_COUNT = 512;

/** An HSCAN's answer: the next cursor, then fields and values alternating. */
export type HashScan = [cursor: string, fieldsAndValues: string[]];

/** The client's command for PROBE_LOWEST (KEYS[1] the hash, ARGV pairs series, floor). */
export type ProbeLowest = (key: string, ...args: string[]) => Promise<string[]>;

/** A lowest read: its escaped series name and floor. */
export interface LowestRead {
  name: string;
  floor: number;
}

/** Issues the HSCAN of key: call it right after the READ call, before awaiting, to keep their order. */
export const scanHash = (redis: RedisClient, key: string): Promise<HashScan> => redis.hscan(key, '0', 'COUNT', SCAN_COUNT) as Promise<HashScan>;

/** The lowest bucket at or above floor of series `name` (escaped: no ':'), among an HSCAN's fields, or null. */
export function lowestInScan(fieldsAndValues: string[], name: string, floor: number): number | null {
  const p = `${name}:`;
  let low: number | null = null;
  for (let i = 0; i < fieldsAndValues.length; i += 2) {
    const f = fieldsAndValues[i]!;
    if (!f.startsWith(p)) continue;
    // The series' l, n and t fields are no numbers.
    const b = Number(f.slice(p.length));
    if (Number.isInteger(b) && b >= floor && (low === null || b < low)) low = b;
  }
  return low;
}

/**
 * How many of an entity's reads, from the first, one READ call and one scan answer: a lowest read
 * is answered after its own eviction, so the reads stop before one that would evict buckets of an
 * earlier lowest read's series above that read's floor (rare: a request naming a series twice).
 */
export function firstPart(reads: SeriesRead[]): number {
  // Made at the first lowest read: the hot path's reads have none.
  let lowest: Map<string, number> | undefined;
  for (let j = 0; j < reads.length; j++) {
    const r = reads[j]!;
    if (r.kind === 'max') continue;
    const below = lowest?.get(r.series);
    if (below !== undefined && below < r.floor) return j;
    if (r.kind === 'lowest') (lowest ??= new Map()).set(r.series, Math.min(below ?? r.floor, r.floor));
  }
  return reads.length;
}

/**
 * Answers the lowest reads of one entity, in order: null where READ found the series empty
 * (`live[i]` false), else from its scan, or from the probe when the hash was too large to scan
 * (scan null: an earlier part of the same request found it so, and a store answers one way a
 * request, as before this moved to the client).
 */
export async function answerLowest(key: string, reads: LowestRead[], live: boolean[], scan: HashScan | null, probe: ProbeLowest): Promise<(number | null)[]> {
  if (scan && scan[0] === '0') return reads.map((r, i) => (live[i] ? lowestInScan(scan[1], r.name, r.floor) : null));
  const asked = reads.filter((_, i) => live[i]);
  const probed = asked.length > 0 ? await probe(key, ...asked.flatMap((r) => [r.name, String(r.floor)])) : [];
  let j = 0;
  return reads.map((_, i) => (live[i] ? Number(probed[j++]) : null));
}
