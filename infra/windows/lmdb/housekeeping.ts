import type { Key, RootDatabase } from 'lmdb';
import { KEYSPACES } from './keys.js';

/**
 * Expiry for the LMDB window store, in slices: each slice reads at most SLICE keys (a few
 * milliseconds on the event loop) and deletes what expired in one write transaction, whose commit
 * runs on lmdb's write thread; the next slice starts after that commit. Other calls interleave
 * between slices, so a sweep over millions of ids or entities never holds the process.
 * - id slots whose expiry passed are deleted whole, slot by slot (every interval);
 * - entities idle longer than the idle TTL, and leases whose expiry passed (at most hourly).
 */
const SLICE = 2_000;
const FULL_SWEEP_MS = 3_600_000;

export interface HousekeeperDeps {
  db: RootDatabase;
  idleTtlMs: number;
  intervalMs: number;
  write: (body: () => void) => Promise<void>;
}

export function createHousekeeper(deps: HousekeeperDeps) {
  const { db } = deps;
  let stopping = false;
  let lastFullSweep = -Infinity;

  /** Deletes the keys of [start, end) that `expired` picks, a slice at a time. */
  async function sweepRange(start: Key[], end: Key[], expired: (key: Key, value: unknown) => boolean): Promise<number> {
    let from: Key = start;
    let removed = 0;
    for (;;) {
      if (stopping) return removed;
      const doomed: Key[] = [];
      let last: Key | undefined;
      let seen = 0;
      for (const { key, value } of db.getRange({ start: from, end, limit: SLICE + 1 })) {
        if (seen++ === SLICE) break;
        last = key;
        if (expired(key, value)) doomed.push(key);
      }
      if (doomed.length > 0) {
        await deps.write(() => {
          for (const k of doomed) void db.remove(k);
        });
        removed += doomed.length;
      } else {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (last === undefined || seen <= SLICE) return removed;
      from = [...(last as Key[]), ''];
    }
  }

  /** One pass over everything that can expire; answers how many keys it removed. */
  async function sweep(now: number): Promise<number> {
    let removed = 0;
    const slots = [...db.getRange({ start: [KEYSPACES.idSlot], end: [KEYSPACES.due] })].filter(({ value }) => (value as number) <= now);
    for (const { key } of slots) {
      const [, scope, slotMs, slot] = key as [string, string, number, number];
      removed += await sweepRange([KEYSPACES.id, scope, slotMs, slot], [KEYSPACES.id, scope, slotMs, slot + 1], () => true);
      if (stopping) return removed;
      await deps.write(() => void db.remove(key));
    }
    // Entities and leases are read whole to find the expired ones: once an hour is enough for an
    // idle TTL of days (reads already treat idle entities as gone).
    if (now - lastFullSweep < FULL_SWEEP_MS) return removed;
    lastFullSweep = now;
    removed += await sweepRange([KEYSPACES.entity], [KEYSPACES.entity, '\uffff'], (_, v) => now - (v as { t: number }).t > deps.idleTtlMs);
    removed += await sweepRange([KEYSPACES.lease], [KEYSPACES.lease, '\uffff'], (_, v) => (v as number) <= now);
    return removed;
  }

  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => sweep(Date.now())).catch((err) => console.error('window store housekeeping failed; retrying next interval', err));
  }, deps.intervalMs);
  timer.unref();

  return {
    sweep: (now: number) => (running = running.then(() => sweep(now))) as Promise<number>,
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
}
