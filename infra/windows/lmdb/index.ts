import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { open, type Key, type RootDatabase } from 'lmdb';
import { tryLock } from '../../fs/writer-lock.js';
import { idSlots } from '../event-ids.js';
import { readSum, update, type Entity } from '../memory/state.js';
import type { EntityRef, IdState, SeriesRead, WindowStore } from '../types.js';
import { down, up } from '../../health.js';
import { DEFAULT_IDLE_TTL_MS, checkApply, checkFinite, checkPositive, checkReads } from '../validate.js';
import { decodeEntity, encodeEntity, touchedAtOf, type StoredEntity } from './entity-record.js';
import { createHousekeeper } from './housekeeping.js';
import { createIdSet } from './ids.js';
import { KEYSPACES } from './keys.js';
import { createWriteBehind } from './write-behind.js';
import { turn } from '../../breather.js';

export interface LmdbWindowStoreOptions {
  /** The LMDB environment's directory; a lock file beside it keeps a second process out. */
  dir: string;
  /** An entity without updates for this long is forgotten (default 100 days). */
  idleTtlMs?: number;
  /** How often expired ids, idle entities and leases are swept (default one minute). */
  housekeepingIntervalMs?: number;
}

export interface LmdbWindowStore extends WindowStore {
  /** Remembered event ids (tests and benchmarks). */
  countIds(): number;
  /** Runs an expiry pass now; answers how many keys it removed (tests; a timer runs it otherwise). */
  housekeep(now: number): Promise<number>;
}

/** Requests (or ids) a transaction body handles at most: a few milliseconds on the event loop. */
const CHUNK = 200;

/** A hold as stored: holder, token, expiry (epoch ms). */
interface StoredHold {
  h: string;
  t: string;
  e: number;
}

/**
 * The embedded window store on LMDB (the `lmdb` package): state lives in a memory-mapped B+tree
 * on disk, so the heap does not grow with entities or remembered ids and nothing is ever
 * serialised whole. Each call's body runs at once on the event loop (reads are memory-mapped
 * lookups, microseconds each, seen through the writes not yet committed: write-behind.ts) and its
 * writes are one transaction, committed and flushed on lmdb's write thread; the call resolves once
 * they are on disk (or at once with `sync: false`), so what a caller saw succeed survives kill -9,
 * and LMDB's copy-on-write pages never leave a torn state. Expiry of ids, idle entities and leases
 * runs in small slices (housekeeping.ts), never one long step.
 */
export async function createLmdbWindowStore(opts: LmdbWindowStoreOptions): Promise<LmdbWindowStore> {
  const idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
  checkPositive('idleTtlMs', idleTtlMs);
  await mkdir(path.dirname(opts.dir), { recursive: true });
  const locked = await tryLock(`${opts.dir}.lock`);
  if (!locked.held) throw new Error(`window state ${opts.dir} is in use by process ${locked.ownerPid}`);
  const db: RootDatabase = open({ path: opts.dir, compression: false });
  let stopped: Error | undefined;

  const writes = createWriteBehind(db);

  /** Runs `body` now (its writes are one transaction); resolves with its result once they are on disk, or at once without `sync`. */
  const write = async <T>(body: () => T, sync = true): Promise<T> => {
    if (stopped) throw stopped;
    const result = body();
    if (sync) await writes.durable();
    return result;
  };

  /**
   * Runs `body` over `items` in chunks of at most CHUNK items, one event turn each (so one
   * transaction each); resolves with the answers in order once all are on disk. A consumer batch
   * can hold thousands of requests; in one body they would hold the event loop for as many times a
   * request's tens of microseconds, so other work runs between chunks while commits still group
   * (lmdb commits whatever was issued meanwhile in one transaction, with one fsync).
   */
  const writeChunked = async <I, O>(items: I[], body: (chunk: I[]) => O[], sync = true): Promise<O[]> => {
    if (items.length <= CHUNK) return write(() => body(items), sync);
    const answers: O[] = [];
    for (let i = 0; i < items.length; i += CHUNK) {
      if (stopped) throw stopped;
      if (i > 0) await turn();
      answers.push(...body(items.slice(i, i + CHUNK)));
    }
    if (sync) await writes.durable();
    return answers;
  };

  const liveEntity = (key: Key, at: number): Entity | undefined => {
    const v = writes.get(key) as StoredEntity | undefined;
    return v && at - touchedAtOf(v) <= idleTtlMs ? decodeEntity(v) : undefined;
  };

  const readNow = (entity: EntityRef, reads: SeriesRead[], at: number): (number | null)[] => {
    const key = [KEYSPACES.entity, entity.scope, entity.id];
    const e = liveEntity(key, at);
    if (!e) return reads.map((r) => (r.kind === 'sum' ? 0 : null));
    const evicts = reads.some((r) => r.kind !== 'max' && e.sums.get(r.series)?.hasBelow(r.floor));
    const values = reads.map((r) => (r.kind === 'max' ? (e.maxes.get(r.series) ?? null) : readSum(e, r)));
    // Eviction is for good, as on Redis: issued (seen by every later call, not awaited to disk:
    // it is not a change a caller relies on) before the answer.
    if (evicts) writes.put(key, encodeEntity(e));
    return values;
  };

  const idSet = createIdSet(db, writes);

  /** Keeps the earliest due time per id (inside a call's body). */
  const scheduleIn = (scope: string, queue: string, entries: { id: string; dueAt: number }[]): void => {
    for (const { id, dueAt } of entries) {
      const queued = [KEYSPACES.queued, scope, queue, id];
      const cur = writes.get(queued) as number | undefined;
      if (cur !== undefined && cur <= dueAt) continue;
      if (cur !== undefined) writes.remove([KEYSPACES.due, scope, queue, cur, id]);
      writes.put(queued, dueAt);
      writes.put([KEYSPACES.due, scope, queue, dueAt, id], 1);
    }
  };

  const liveHold = (key: Key, at: number): StoredHold | undefined => {
    const v = writes.get(key) as StoredHold | undefined;
    return v && v.e > at ? v : undefined;
  };

  const housekeeper = createHousekeeper({ db, writes, ids: idSet, idleTtlMs, intervalMs: opts.housekeepingIntervalMs ?? 60_000 });

  return {
    kind: 'lmdb',
    async apply(requests, options) {
      checkApply(requests);
      if (requests.length === 0) return [];
      return writeChunked(
        requests,
        (chunk) => {
          const at = Date.now();
          // Requests of one call often name the same entity (a check updates its user in three):
          // each entity is decoded once and written once per chunk, after its last update.
          const touched = new Map<string, { key: Key; e: Entity }>();
          const applied = chunk.map((r) => {
            if (r.once) {
              const found = idSet.check(r.entity.scope, r.once.id, idSlots(r.once.ttlMs, at), 1);
              if (found?.state === 1) return false;
              if (found) writes.put(found.key, found.stored(1));
            }
            const name = `${r.entity.scope}\u0000${r.entity.id}`;
            let entry = touched.get(name);
            if (!entry) {
              const key = [KEYSPACES.entity, r.entity.scope, r.entity.id];
              entry = { key, e: liveEntity(key, at) ?? { sums: new Map(), maxes: new Map(), touchedAt: at } };
              touched.set(name, entry);
            }
            for (const u of r.updates) update(entry.e, u);
            entry.e.touchedAt = at;
            return true;
          });
          for (const { key, e } of touched.values()) writes.put(key, encodeEntity(e));
          return applied;
        },
        options?.sync,
      );
    },
    async read(entity, reads) {
      if (stopped) throw stopped;
      checkReads(reads);
      return readNow(entity, reads, Date.now());
    },
    async readMany(items) {
      if (stopped) throw stopped;
      for (const i of items) checkReads(i.reads);
      const now = Date.now();
      return items.map((i) => readNow(i.entity, i.reads, now));
    },
    async reserveIds(scope, ids, ttlMs) {
      checkPositive('reserveIds ttlMs', ttlMs);
      if (ids.length === 0) return [];
      return writeChunked(ids, (chunk) => {
        const slots = idSlots(ttlMs, Date.now());
        return chunk.map((id): IdState => {
          const found = idSet.check(scope, id, slots, 0);
          return !found ? 'new' : found.state === 1 ? 'applied' : 'reserved';
        });
      });
    },
    async unreserveIds(scope, ids, ttlMs) {
      checkPositive('unreserveIds ttlMs', ttlMs);
      if (ids.length === 0) return;
      await write(() => {
        const slots = idSlots(ttlMs, Date.now());
        for (const id of ids) {
          const found = idSet.find(scope, id, slots);
          if (found?.state === 0) writes.remove(found.key);
        }
      });
    },
    async claim(scope, namespace, ids, ttlMs, options) {
      checkPositive('claim ttlMs', ttlMs);
      return write(() => {
        const at = Date.now();
        return ids.map((id) => {
          const key = [KEYSPACES.lease, scope, namespace, id];
          const until = writes.get(key) as number | undefined;
          if (until !== undefined && until > at) return false;
          writes.put(key, at + ttlMs);
          return true;
        });
      }, options?.sync);
    },
    async synced() {
      await writes.durable();
    },
    async release(scope, namespace, ids) {
      await write(() => {
        for (const id of ids) writes.remove([KEYSPACES.lease, scope, namespace, id]);
      });
    },
    async hold(scope, namespace, id, { holder, token, ttlMs }) {
      checkPositive('hold ttlMs', ttlMs);
      return write(() => {
        const at = Date.now();
        const key = [KEYSPACES.hold, scope, namespace, id];
        const cur = liveHold(key, at);
        if (cur && cur.h !== holder) return { won: false, hold: { holder: cur.h, token: cur.t, expiresAt: cur.e } };
        const next: StoredHold = { h: holder, t: cur?.t ?? token, e: at + ttlMs };
        writes.put(key, next);
        return { won: true, hold: { holder: next.h, token: next.t, expiresAt: next.e } };
      });
    },
    async readHold(scope, namespace, id) {
      if (stopped) throw stopped;
      const cur = liveHold([KEYSPACES.hold, scope, namespace, id], Date.now());
      return cur ? { holder: cur.h, token: cur.t, expiresAt: cur.e } : null;
    },
    async dropHold(scope, namespace, id, holder) {
      return write(() => {
        const key = [KEYSPACES.hold, scope, namespace, id];
        if (liveHold(key, Date.now())?.h !== holder) return false;
        writes.remove(key);
        return true;
      });
    },
    async schedule(scope, queue, entries) {
      for (const e of entries) checkFinite('schedule dueAt', e.dueAt);
      if (entries.length === 0) return;
      await writeChunked(entries, (chunk) => {
        scheduleIn(scope, queue, chunk);
        return chunk;
      });
    },
    async takeDue(scope, queue, now, limit, lease) {
      checkPositive('takeDue limit', limit);
      if (lease) checkFinite('lease dueAt', lease.dueAt);
      // At most CHUNK ids a body, each id's removal and its lease in the same one: a flush takes
      // thousands, which in one body held the event loop for hundreds of milliseconds. The range is
      // of the committed tree: entries removed but not committed yet are skipped, entries queued
      // but not committed yet wait for a later call.
      const taken: string[] = [];
      let from: Key = [KEYSPACES.due, scope, queue, -Infinity];
      const end = [KEYSPACES.due, scope, queue, now, '\uffff'];
      for (;;) {
        if (stopped) throw stopped;
        const want = Math.min(CHUNK, limit - taken.length);
        let seen = 0;
        for (const key of db.getKeys({ start: from, end, snapshot: false })) {
          from = [...(key as Key[]), ''];
          const [, , , dueAt, id] = key as [string, string, string, number, string];
          const queued = [KEYSPACES.queued, scope, queue, id];
          // Removed or moved by a write not committed yet (the due key goes with its queued entry).
          if (writes.get(queued) !== dueAt) continue;
          writes.remove(key);
          writes.remove(queued);
          if (lease) scheduleIn(scope, lease.queue, [{ id: lease.prefix + id, dueAt: lease.dueAt }]);
          taken.push(id);
          if (++seen === want) break;
        }
        if (seen < want || taken.length === limit) break;
        await turn();
      }
      await writes.durable();
      return taken;
    },
    async unschedule(scope, queue, ids) {
      if (ids.length === 0) return;
      await writeChunked(ids, (chunk) => {
        for (const id of chunk) {
          const queued = [KEYSPACES.queued, scope, queue, id];
          const dueAt = writes.get(queued) as number | undefined;
          if (dueAt === undefined) continue;
          writes.remove(queued);
          writes.remove([KEYSPACES.due, scope, queue, dueAt, id]);
        }
        return chunk;
      });
    },
    async putValues(scope, namespace, entries) {
      if (entries.length === 0) return;
      await writeChunked(entries, (chunk) => {
        for (const e of chunk) writes.put([KEYSPACES.value, scope, namespace, e.id], e.value);
        return chunk;
      });
    },
    async getValues(scope, namespace, ids) {
      if (stopped) throw stopped;
      return ids.map((id) => (writes.get([KEYSPACES.value, scope, namespace, id]) as string | undefined) ?? null);
    },
    async deleteValues(scope, namespace, ids) {
      if (ids.length === 0) return;
      await writeChunked(ids, (chunk) => {
        for (const id of chunk) writes.remove([KEYSPACES.value, scope, namespace, id]);
        return chunk;
      });
    },
    async deleteEntity(entity) {
      await write(() => writes.remove([KEYSPACES.entity, entity.scope, entity.id]));
    },
    housekeep: (now) => housekeeper.sweep(now),
    countIds() {
      return db.getKeysCount({ start: [KEYSPACES.id], end: [KEYSPACES.id, '\uffff'] }) + db.getKeysCount({ start: [KEYSPACES.legacyId], end: [KEYSPACES.legacyId, '\uffff'] });
    },
    health() {
      return stopped ? down(stopped.message) : writes.failure ? down(`a commit failed: ${String(writes.failure)}`) : up;
    },
    async close() {
      if (stopped) return;
      stopped = new Error('window store closed');
      await housekeeper.stop();
      await db.flushed;
      await db.close();
      await locked.lock.release();
    },
  };
}
