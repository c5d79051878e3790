import type { IdState, WindowStore } from '../types.js';
import { Persistence, execute, type JournalRecord } from './persistence.js';
import { WindowState } from './state.js';
import { DEFAULT_IDLE_TTL_MS, checkApply, checkFinite, checkReads, checkPositive } from '../validate.js';

export interface MemoryWindowStoreOptions {
  /** Snapshot file; its journals and lock sit beside it. Without it the state lives only in memory. */
  snapshotPath?: string;
  /** How often journals are compacted into a new snapshot (default one minute; sooner when a journal outgrows it). */
  snapshotIntervalMs?: number;
  /** An entity without updates for this long is forgotten (default 100 days). */
  idleTtlMs?: number;
}

/**
 * The embedded window store: state in process, every change journaled and fsync'ed before its
 * call resolves (see persistence.ts), so a restart, even after kill -9, keeps every effect a
 * caller saw succeed, and once-claims with them.
 */
export async function createMemoryWindowStore(opts: MemoryWindowStoreOptions = {}): Promise<WindowStore> {
  const idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
  checkPositive('idleTtlMs', idleTtlMs);
  const state = new WindowState({ idleTtlMs });
  const disk = opts.snapshotPath ? await Persistence.open(opts.snapshotPath, state, opts.snapshotIntervalMs ?? 60_000) : undefined;
  let stopped: Error | undefined;

  const usable = (): void => {
    if (stopped) throw stopped;
  };

  /** Runs a change now, answers once it is durable; a journal that cannot be written stops the store. */
  const change = async (r: JournalRecord): Promise<unknown> => {
    usable();
    const result = execute(state, r);
    try {
      await disk?.record(r);
    } catch (err) {
      stopped ??= new Error('window store stopped: journal write failed (restart to recover from disk)', { cause: err });
      throw stopped;
    }
    return result;
  };

  return {
    kind: 'memory',
    async apply(requests) {
      checkApply(requests);
      if (requests.length === 0) return [];
      return (await change({ at: Date.now(), op: 'apply', requests })) as boolean[];
    },
    async read(entity, reads) {
      usable();
      checkReads(reads);
      return state.read(entity, reads, Date.now());
    },
    async reserveIds(scope, ids, ttlMs) {
      checkPositive('reserveIds ttlMs', ttlMs);
      if (ids.length === 0) return [];
      return (await change({ at: Date.now(), op: 'reserveIds', scope, ids, ttlMs })) as IdState[];
    },
    async unreserveIds(scope, ids, ttlMs) {
      checkPositive('unreserveIds ttlMs', ttlMs);
      if (ids.length === 0) return;
      await change({ at: Date.now(), op: 'unreserveIds', scope, ids });
    },
    async claim(scope, namespace, ids, ttlMs) {
      checkPositive('claim ttlMs', ttlMs);
      return (await change({ at: Date.now(), op: 'claim', scope, namespace, ids, ttlMs })) as boolean[];
    },
    async release(scope, namespace, ids) {
      await change({ at: Date.now(), op: 'release', scope, namespace, ids });
    },
    async schedule(scope, queue, entries) {
      for (const e of entries) checkFinite('schedule dueAt', e.dueAt);
      if (entries.length === 0) return;
      await change({ at: Date.now(), op: 'schedule', scope, queue, entries });
    },
    async takeDue(scope, queue, now, limit) {
      checkPositive('takeDue limit', limit);
      return (await change({ at: Date.now(), op: 'takeDue', scope, queue, now, limit })) as string[];
    },
    async deleteEntity(entity) {
      await change({ at: Date.now(), op: 'deleteEntity', entity });
    },
    async close() {
      if (stopped) return;
      stopped = new Error('window store closed');
      await disk?.close();
    },
  };
}
