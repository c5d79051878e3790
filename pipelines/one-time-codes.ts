import { createHash } from 'node:crypto';
import type { EntityRef, WindowStore } from '../infra/windows/types.js';
import { START_LIMITS, type StartLimit } from '../domain/one-time-codes.js';

/**
 * The window-store side of one-time codes. Both counters increment first and read after: the
 * k-th of any number of parallel increments reads at least k, so no more than `max` callers ever
 * read a count within `max` (reading first, as before, let every parallel guess pass). Each
 * increment is one atomic step of the store (one script on Redis, one transaction embedded).
 */

/** Counts one answer to a code; answers how many were made, this one included. */
export async function countAttempt(windows: WindowStore, entity: EntityRef): Promise<number> {
  await windows.apply([{ entity, updates: [{ kind: 'sum', series: 'a', bucket: 0, delta: 1, floor: 0 }] }]);
  const [n] = await windows.read(entity, [{ kind: 'sum', series: 'a', floor: 0 }]);
  return n ?? 0;
}

/** Addresses and users appear in the store only as digests, so a GDPR delete leaves no identifier behind here. */
export const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** The counter of a purpose's starts for one user (`u`) or one address (`a`). */
export const startCounter = (scope: string, purpose: string, of: 'u' | 'a', key: string): EntityRef => ({ scope, id: `otp-start:${purpose}:${of}:${digest(key)}` });

/**
 * Counts a start of a code for a user and an address; answers the first limit it exceeds, or null.
 * Counters live in fixed windows, one bucket each, that the next window's reads evict.
 */
export async function startRefusedBy(windows: WindowStore, scope: string, purpose: string, keys: { user: string; address: string }, now: number): Promise<StartLimit | null> {
  const counted = [
    { limit: START_LIMITS.per_user, entity: startCounter(scope, purpose, 'u', keys.user) },
    { limit: START_LIMITS.per_address, entity: startCounter(scope, purpose, 'a', keys.address) },
  ].map((c) => ({ ...c, bucket: Math.floor(now / c.limit.windowMs) }));
  await windows.apply(counted.map((c) => ({ entity: c.entity, updates: [{ kind: 'sum' as const, series: 's', bucket: c.bucket, delta: 1, floor: c.bucket }] })));
  const counts = await windows.readMany(counted.map((c) => ({ entity: c.entity, reads: [{ kind: 'sum' as const, series: 's', floor: c.bucket }] })));
  return counted.find((_c, i) => (counts[i]![0] ?? 0) > counted[i]!.limit.max)?.limit ?? null;
}
