/**
 * Where a consumer's claims of event ids live on one Redis server (plain-claims.ts). An id of scope
 * s with a window of W ms is claimed in slot floor(t / W) of its claim time t:
 *   <prefix>k:{s}:<W>:<slot>:<bucket>   HASH 8-byte digest -> `<topic>,<partition>,<offset>`
 * the bucket being the digest's first four bytes mod CLAIM_BUCKETS, the field its next eight (the
 * split of scripts.ts IDS). The claims of the last W are all in the newest slot or the one before,
 * so a lookup is one HGET there and one HSETNX in the newest, which decides alone: no generations
 * to open, no pruning, nothing a script must do. A slot's keys expire when no lookup searches them
 * any more, at the end of the next slot: an id is remembered for at least its window and at most
 * twice it (today's layout: at most one six-hour slot longer), the price of two lookups an id where
 * six-hour slots would take five.
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

/**
 * The bucket of an id's 12-byte digest (event-ids.ts idDigest): its first four bytes, big-endian,
 * mod CLAIM_BUCKETS, as scripts.ts reads them (a power of two: the last two bytes decide).
 */
export const claimBucket = (digest: Uint8Array): number => ((digest[2]! << 8) | digest[3]!) % CLAIM_BUCKETS;
