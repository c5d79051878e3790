/**
 * Where a consumer's claims of event ids live on one Redis server (plain-claims.ts). An id of scope
 * s with a window of W ms is claimed in slot floor(t / W) of its claim time t:
 *   <prefix>k:{s}:<W>:<slot>:<bucket>   HASH 8-byte digest -> `<topic>,<partition>,<offset>,<second>`
 * the bucket being the digest's first four bytes mod CLAIM_BUCKETS, the field its next eight (the
 * split of scripts.ts IDS). The claims of the last W are all in the newest slot or the one before,
 * so a lookup is one HGET there and one HSETNX in the newest, which decides alone: no generations
 * to open, no pruning, nothing a script must do. `<second>` is the claim's second within its slot:
 * a claim in the slot before whose second is out of the window counts as absent (claimLimit), so
 * an id is remembered for its window and at most a second longer, where six-hour slots searched
 * whole would have needed five lookups. A slot's keys expire when no lookup searches them any more,
 * at the end of the next slot (the bytes of up to two windows' ids).
 * CLAIM_BUCKETS keeps a bucket a listpack (at most 128 fields, scanned in C) up to 64 claims a bucket
 * on average, 262,144 ids a slot; a busier scope's buckets become hash tables, larger per id but
 * still bounded by the window. Fixed: a lookup must find an id in the bucket its claim chose.
 */
export const CLAIM_BUCKETS = 4096;

export interface ClaimSlots {
  /** The slot a claim made now goes to; the one before is searched too. */
  newest: number;
  /** When the newest slot's keys may go (ms since the epoch). */
  expireAt: number;
}

export function claimSlots(windowMs: number, now: number): ClaimSlots {
  const newest = Math.floor(now / windowMs);
  return { newest, expireAt: (newest + 2) * windowMs };
}

/** A claim's second within its slot, at `now`. */
export const claimSecond = (windowMs: number, slot: number, now: number): number => Math.floor((now - slot * windowMs) / 1000);

/**
 * The lowest second of a claim in the slot before the newest that is still in the window at `now`:
 * one at a lower second was made before now - W (its second ends by then).
 */
export const claimLimit = (windowMs: number, newest: number, now: number): number => Math.floor((now - windowMs - (newest - 1) * windowMs) / 1000);

/** The place a claim's value names (`<topic>,<partition>,<offset>`) and its second, or null when it is out of the window. */
export function claimPlace(value: string, limit: number): string | null {
  const comma = value.lastIndexOf(',');
  return Number(value.slice(comma + 1)) >= limit ? value.slice(0, comma) : null;
}

/**
 * The bucket of an id's 12-byte digest (event-ids.ts idDigest): its first four bytes, big-endian,
 * mod CLAIM_BUCKETS, as scripts.ts reads them (a power of two: the last two bytes decide).
 */
export const claimBucket = (digest: Uint8Array): number => ((digest[2]! << 8) | digest[3]!) % CLAIM_BUCKETS;
