import { hash } from 'node:crypto';
import { sha256Head12 } from './sha256-head.js';

/**
 * The time grid of remembered event ids, shared by both stores. Ids are kept in time slots of
 * length L (six hours when the id window is six hours or more, a quarter of it below that): an id
 * claimed at t lives in slot floor(t / L), which is dropped whole once (slot + 1) * L + ttl has
 * passed, so an id is remembered for at least its window and at most one slot longer (24 to 30
 * hours for the default 24-hour window). A lookup covers the slots from floor((now - ttl) / L) to
 * floor(now / L): five for a 24-hour window. L is fixed for every window of six hours or more, so
 * changing an organization's window among those never moves its ids to another grid. Both stores
 * keep an id once, with its slot in its value, and count it absent once that slot is out of the
 * window: Redis once per generation of buckets (redis/scripts.ts IDS: one lookup), LMDB once per
 * span of eight slots (lmdb/ids.ts: one or two lookups).
 */
const SLOT_MS = 6 * 3_600_000;

export const slotMsOf = (ttlMs: number): number => (ttlMs >= SLOT_MS ? SLOT_MS : Math.max(1, Math.ceil(ttlMs / 4)));

export interface IdSlots {
  slotMs: number;
  /** Oldest and newest slot a lookup at `now` must search. */
  first: number;
  last: number;
  /** When an id added now may be forgotten: the end of the newest slot plus the window. */
  expireAt: number;
}

export function idSlots(ttlMs: number, now: number): IdSlots {
  const slotMs = slotMsOf(ttlMs);
  const last = Math.floor(now / slotMs);
  return { slotMs, first: Math.floor((now - ttlMs) / slotMs), last, expireAt: (last + 1) * slotMs + ttlMs };
}

export const ID_DIGEST_BYTES = 12;

/**
 * 12 bytes of SHA-256 of the event id: 4 pick the hash bucket within a slot, 8 are the stored field.
 * The organization is in the key, so it is not hashed; a collision of 64 bits within one bucket
 * of one organization is out of reach, and SHA-256 keeps a producer from crafting one.
 */
export function idDigest(id: string): Buffer {
  const digest = Buffer.allocUnsafe(ID_DIGEST_BYTES);
  writeIdDigest(id, digest, 0);
  return digest;
}

/** idDigest written at out[at..at+12): most ids are short ASCII, hashed here without a call into C++. */
export function writeIdDigest(id: string, out: Uint8Array, at: number): void {
  if (!sha256Head12(id, out, at)) out.set(hash('sha256', id, 'buffer').subarray(0, ID_DIGEST_BYTES), at);
}
