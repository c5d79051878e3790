import type { Key, RootDatabase } from 'lmdb';
import { touchedAtOf, type StoredEntity } from './entity-record.js';
import type { IdSet } from './ids.js';
import { KEYSPACES } from './keys.js';
import type { WriteBehind } from './write-behind.js';
import { turn } from '../../breather.js';

/**
 * Expiry for the LMDB window store, in slices: each slice reads keys for at most SLICE_MS on the
 * event loop (memory-mapped reads, about a microsecond a key), then issues the removal of what
 * expired through the store's write-behind (write-behind.ts), which lmdb executes and commits on
 * its write thread; the next slice starts once they are committed. A key with a write not yet
 * committed was just written, so it is left alone. Other calls interleave between slices, so a
 * sweep over millions of ids or entities never holds the process.
 * - id spans (ids.ts) and earlier-layout id slots whose expiry passed are deleted whole, one by one (every interval);
 * - entities idle longer than the idle TTL, and leases and holds whose expiry passed (at most hourly).
 */
const SLICE_KEYS = 5_000;
const SLICE_MS = 4;
const FULL_SWEEP_MS = 3_600_000;

export interface HousekeeperDeps {
  db: RootDatabase;
  writes: WriteBehind;
  ids: IdSet;
  idleTtlMs: number;
  intervalMs: number;
}

export function createHousekeeper(deps: HousekeeperDeps) {
  const { db, writes } = deps;
  let stopping = false;
  let lastFullSweep = -Infinity;

  /**
   * Deletes the keys of [start, end) that `expired` picks (every key without it), a slice at a
   * time; the range is read without a long-lived snapshot so freed pages can be reused meanwhile.
   */
  async function sweepRange(start: Key[], end: Key[], expired?: (value: unknown) => boolean): Promise<number> {
    let from: Key = start;
    let removed = 0;
    for (;;) {
      if (stopping) return removed;
      const sliceEnd = performance.now() + SLICE_MS;
      let last: Key | undefined;
      let seen = 0;
      let done = true;
      let removals = false;
      const range = expired
        ? db.getRange({ start: from, end, limit: SLICE_KEYS, snapshot: false })
        : db.getKeys({ start: from, end, limit: SLICE_KEYS, snapshot: false }).map((key) => ({ key, value: undefined }));
      for (const { key, value } of range) {
        last = key;
        if ((!expired || expired(value)) && !writes.isPending(key)) {
          writes.remove(key);
          removals = true;
          removed++;
        }
        if (++seen === SLICE_KEYS || performance.now() > sliceEnd) {
          done = false;
          break;
        }
      }
      if (removals) await writes.durable();
      else await turn();
      if (done || last === undefined) return removed;
      from = [...(last as Key[]), ''];
    }
  }

  /**
   * Deletes every id of the grid parts (spans or slots) whose expiry, kept in `metaSpace` as
   * [scope, slotMs, part], passed, then their expiry; calls `gone` for each part dropped.
   */
  async function sweepIds(now: number, metaSpace: string, idSpace: string, gone?: (scope: string, slotMs: number, part: number) => void): Promise<number> {
    let removed = 0;
    const parts = [...db.getRange({ start: [metaSpace], end: [metaSpace, '\uffff'] })].filter(({ value }) => (value as number) <= now);
    for (const { key } of parts) {
      const [, scope, slotMs, part] = key as [string, string, number, number];
      removed += await sweepRange([idSpace, scope, slotMs, part], [idSpace, scope, slotMs, part + 1]);
      if (stopping) return removed;
      if (!writes.isPending(key)) writes.remove(key);
      await writes.durable();
      gone?.(scope, slotMs, part);
    }
    return removed;
  }

  /** One pass over everything that can expire; answers how many keys it removed. */
  async function sweep(now: number): Promise<number> {
    let removed = await sweepIds(now, KEYSPACES.idSpan, KEYSPACES.id);
    removed += await sweepIds(now, KEYSPACES.legacyIdSlot, KEYSPACES.legacyId, deps.ids.forgetLegacy);
    // Entities and leases are read whole to find the expired ones: once an hour is enough for an
    // idle TTL of days (reads already treat idle entities as gone).
    if (now - lastFullSweep < FULL_SWEEP_MS) return removed;
    lastFullSweep = now;
    removed += await sweepRange([KEYSPACES.entity], [KEYSPACES.entity, '\uffff'], (v) => now - touchedAtOf(v as StoredEntity) > deps.idleTtlMs);
    removed += await sweepRange([KEYSPACES.lease], [KEYSPACES.lease, '\uffff'], (v) => (v as number) <= now);
    removed += await sweepRange([KEYSPACES.hold], [KEYSPACES.hold, '\uffff'], (v) => (v as { e: number }).e <= now);
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
